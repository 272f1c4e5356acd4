package io.qv4j.agent.log;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's own logger: single {@code qv: ...} lines on the process's standard error. It writes
 * to file descriptor 2 itself, never through {@code System.err}: an application may replace that
 * stream with code that runs on its own pools, and the agent logs while holding its lock, so
 * going through it could deadlock the application. It never touches the application's logging.
 */
public final class Log {

    /** Distinct "once" messages remembered; beyond this, such messages are dropped (bounded memory). */
    static final int ONCE_KEPT = 4096;

    private static final PrintStream ERR = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
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
        ERR.println("qv: " + message);
    }

    /** Printed at {@code verbose=true} only. */
    public static void debug(String message) {
        if (verbose) info(message);
    }

    /** Printed once per key for the life of the JVM. */
    public static void once(String key, String message) {
        if (ONCE.size() < ONCE_KEPT && ONCE.add(key)) info(message);
    }
}
