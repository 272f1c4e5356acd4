package io.qv4j.agent.live;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * The JVM's agent properties: a property table the Attach API reads
 * ({@code VirtualMachine.getAgentProperties()}) that application code never sees, unlike system
 * properties. The attach listener answers from it on its own thread, so a busy application does not
 * delay a reader, and only a process of the same user may attach. It lives in
 * {@code jdk.internal.vm.VMSupport}, which the agent opens to itself through the instrumentation.
 * Where that fails, the values go to system properties under the same keys.
 */
public final class AgentProps {

    /** Set by a running agent: a small JSON object (version, options, attached, started). */
    public static final String AGENT = "qv4j.agent";
    /** The current placement report (the {@code report=FILE} JSON), refreshed when placement changes. */
    public static final String REPORT = "qv4j.report";
    /** The last attach that failed: the option message. */
    public static final String ERROR = "qv4j.error";

    private static volatile Properties table;

    private AgentProps() {
    }

    /** Finds the agent property table; call once, off the application's start-up path where possible. */
    static synchronized Properties table(Instrumentation inst) {
        Properties t = table;
        if (t != null) return t;
        try {
            Module base = Object.class.getModule();
            Module me = AgentProps.class.getModule();
            if (inst != null && !base.isExported("jdk.internal.vm", me)) {
                inst.redefineModule(base, Set.of(), Map.of("jdk.internal.vm", Set.of(me)), Map.of(), Set.of(), Map.of());
            }
            Method m = Class.forName("jdk.internal.vm.VMSupport").getMethod("getAgentProperties");
            t = (Properties) m.invoke(null);
        } catch (Throwable e) {
            t = System.getProperties();
        }
        table = t;
        return t;
    }

    static void put(Instrumentation inst, String key, String value) {
        try {
            Properties t = table(inst);
            if (value == null) t.remove(key);
            else t.setProperty(key, value);
        } catch (Throwable ignored) {
            // never into the application
        }
    }
}
