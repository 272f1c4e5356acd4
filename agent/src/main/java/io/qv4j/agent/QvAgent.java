package io.qv4j.agent;

import java.lang.instrument.Instrumentation;

/**
 * The -javaagent entry point. It must never throw: an exception escaping premain kills the JVM.
 * Pool instrumentation lands with the agent issue; today the agent only announces itself.
 */
public final class QvAgent {

    private QvAgent() {
    }

    public static void premain(String args, Instrumentation inst) {
        start(args, inst);
    }

    public static void agentmain(String args, Instrumentation inst) {
        start(args, inst);
    }

    private static void start(String args, Instrumentation inst) {
        try {
            // nothing to install yet
        } catch (Throwable t) {
            System.err.println("qv: agent disabled: " + t);
        }
    }
}
