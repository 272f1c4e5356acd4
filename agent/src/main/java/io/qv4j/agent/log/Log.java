package io.qv4j.agent.log;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's own logger: single {@code qv: ...} lines on stderr. It never touches the
 * application's logging (no slf4j, no java.util.logging).
 */
public final class Log {

    private static volatile boolean verbose;
    private static final Set<String> ONCE = ConcurrentHashMap.newKeySet();

    private Log() {
    }

    public static void verbose(boolean on) {
        verbose = on;
    }

    public static boolean isVerbose() {
        return verbose;
    }

    /** Always printed. */
    public static void info(String message) {
        System.err.println("qv: " + message);
    }

    /** Printed at {@code verbose=true} only. */
    public static void debug(String message) {
        if (verbose) info(message);
    }

    /** Printed once per key for the life of the JVM. */
    public static void once(String key, String message) {
        if (ONCE.add(key)) info(message);
    }
}
