package io.qv4j.agent.live;

import java.util.Properties;
import java.util.function.Supplier;

/**
 * The JVM's agent properties: a property table the Attach API reads
 * ({@code VirtualMachine.getAgentProperties()}) that application code never sees, unlike system
 * properties. The attach listener answers from it on its own thread, so a busy application does not
 * delay a reader, and only a process of the same user may attach. It lives in
 * {@code jdk.internal.vm.VMSupport}, which the entry point hands over found ({@code inst.JavaBase});
 * where that fails, the values go to system properties under the same keys.
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

    /** The agent property table, found through {@code source} the first time; call off the application's start-up path where possible. */
    static synchronized Properties table(Supplier<Properties> source) {
        Properties t = table;
        if (t == null) table = t = source.get();
        return t;
    }

    static void put(Supplier<Properties> source, String key, String value) {
        try {
            Properties t = table(source);
            if (value == null) t.remove(key);
            else t.setProperty(key, value);
        } catch (Throwable ignored) {
            // never into the application
        }
    }
}
