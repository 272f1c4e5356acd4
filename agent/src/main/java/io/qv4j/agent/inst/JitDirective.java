package io.qv4j.agent.inst;

import io.qv4j.agent.boot.AgentThread;
import io.qv4j.agent.io.UserCache;
import io.qv4j.agent.live.Live;
import io.qv4j.agent.log.Log;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Keeps the agent's own code off the C2 compiler once the application has started threads by the
 * hundred. An application that makes and ends pools all the time makes the agent's hooks and plans
 * hot, and C2 then compiled them with everything they call inlined, on PUs the application
 * wanted: over 12,000 short-lived pools on 2 PUs, 72 compilations of the agent's methods, 2.3 s of
 * compile time (DESIGN.md §6.8). Their work is bookkeeping, which C1's code does about as well. So at the
 * {@link #AFTER_THREADS}th thread start, on a thread of its own, the agent adds one compiler
 * directive (the {@code Compiler.directives_add} diagnostic command, run in this JVM through the
 * JDK's diagnostic-command bean, with no MBean server made) that excludes {@code io/qv4j/agent/*}
 * from C2. Nothing of the application's is matched: not even the API's classes, which an
 * application may call. A JVM that starts fewer threads pays nothing; one that is not HotSpot, or
 * lacks {@code jdk.management}, or has no usable per-user cache directory (the command reads a
 * file), or runs without tiers ({@code -XX:-TieredCompilation}: C2 is its only compiler), keeps
 * the JIT's defaults, with a {@code verbose} line.
 */
public final class JitDirective implements Runnable {

    /** Thread starts (pool workers and plain threads) after which the directive is added. */
    static final int AFTER_THREADS = 500;
    static final String FILE = "c2-directive.json";
    static final String TEXT = "[ { match: \"io/qv4j/agent/*.*\", c2: { Exclude: true } } ]\n";
    private static final String PACKAGE = "com.sun.management.internal";

    private final Instrumentation inst;
    private final AtomicInteger threads = new AtomicInteger();
    private volatile String outcome;

    public JitDirective(Instrumentation inst) {
        this.inst = inst;
    }

    /** A thread started that the hooks saw; the {@link #AFTER_THREADS}th adds the directive. */
    void threadStarted() {
        if (threads.get() < AFTER_THREADS && threads.incrementAndGet() == AFTER_THREADS) new AgentThread("qv-jit", this).start();
    }

    @Override
    public void run() {
        String said;
        try {
            said = add(inst, UserCache.dir());
        } catch (Throwable t) {
            said = "not added (" + t + ")";
        }
        Log.debug("the agent's code is kept off the C2 compiler after " + AFTER_THREADS + " thread starts: " + said);
        outcome = said.startsWith("added") ? "added" : said;
        Live.changed();
    }

    /** For the report: null before the {@link #AFTER_THREADS}th thread start, then {@code added} or {@code not added (why)}. */
    public String outcome() {
        return outcome;
    }

    /** Adds the directive; returns what happened, in words. */
    static String add(Instrumentation inst, Path dir) throws Exception {
        if (dir == null) return "not added (no per-user cache directory for its file)";
        Module m = ModuleLayer.boot().findModule("jdk.management").orElse(null);
        if (m == null) return "not added (no jdk.management module)";
        Path file = dir.resolve(FILE);
        String path = file.toString();
        // the command splits its arguments on spaces; a quoted path is one argument
        if (path.indexOf('"') >= 0 || path.indexOf('\'') >= 0) return "not added (a quote in the cache directory's path)";
        byte[] text = TEXT.getBytes(StandardCharsets.US_ASCII);
        if (!Arrays.equals(UserCache.read(file, 4096), text)) UserCache.write(dir, FILE, text);
        Module me = JitDirective.class.getModule();
        if (!m.isOpen(PACKAGE, me)) inst.redefineModule(m, Set.of(), Map.of(), Map.of(PACKAGE, Set.of(me)), Set.of(), Map.of());
        ClassLoader platform = ClassLoader.getPlatformClassLoader();
        // its initialiser loads the native library the command bean calls
        Class.forName(PACKAGE + ".PlatformMBeanProviderImpl", true, platform);
        Class<?> c = Class.forName(PACKAGE + ".DiagnosticCommandImpl", true, platform);
        Method bean = c.getDeclaredMethod("getDiagnosticCommandMBean");
        bean.setAccessible(true);
        Method execute = c.getDeclaredMethod("executeDiagnosticCommand", String.class);
        execute.setAccessible(true);
        Object commands = bean.invoke(null);
        // without tiers C2 is the only compiler: excluded from it, the agent's code would be interpreted
        if (String.valueOf(execute.invoke(commands, "VM.flags")).contains("-XX:-TieredCompilation")) return "not added (-XX:-TieredCompilation: no C1 to leave it to)";
        String out = String.valueOf(execute.invoke(commands, "Compiler.directives_add \"" + path + "\"")).strip();
        return out.startsWith("1 compiler directives added") ? "added (" + path + ")" : "not added (" + out + ")";
    }
}
