package io.qv4j.agent.inst;

import io.qv4j.agent.bind.NativeAffinity;
import io.qv4j.agent.boot.QvHooks;
import io.qv4j.agent.log.Log;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.ObjIntConsumer;

/**
 * Installs the boot part and the hooks. The hook class is defined inside {@code java.util.concurrent},
 * not by appending to the boot class path, which would turn off class-data sharing for every
 * application class: through the agent's JNI library unless {@code bind=off} (which loads no
 * native code), else through a private lookup after opening that package (and
 * {@code java.lang}, for threads' tasks) to the agent, which costs a cold JVM milliseconds more.
 */
public final class Boot {

    public static final String HOOKS = "java.util.concurrent.QvHooks";
    private static final String TEMPLATE = "io/qv4j/agent/boot/QvHooks";

    private Boot() {
    }

    /** The hook class, defining it on first use: natively when {@code natively} and the JNI library loads. */
    static Class<?> hooksClass(Instrumentation inst, ClassCache cache, boolean natively) throws Exception {
        try {
            return Class.forName(HOOKS, false, null);
        } catch (ClassNotFoundException notYet) {
            // define it below
        }
        byte[] renamed = renamed(cache, TEMPLATE, HOOKS);
        if (natively && NativeAffinity.load() != null) return NativeAffinity.defineBootClass(HOOKS.replace('.', '/'), renamed);
        // a started thread's Runnable is read to tell pool workers from plain threads
        return JavaBase.inJavaUtilConcurrent(inst, "java.lang").defineClass(renamed);
    }

    /** The bytes of the boot part {@code template} renamed to {@code target}, a class of {@code java.util.concurrent}. */
    static byte[] renamed(ClassCache cache, String template, String target) throws IOException {
        byte[] bytes;
        try (InputStream in = Boot.class.getClassLoader().getResourceAsStream(template + ".class")) {
            if (in == null) throw new IOException(template + ".class missing from the agent jar");
            bytes = in.readAllBytes();
        }
        String internal = target.replace('.', '/');
        ClassCache.Entry hit = cache.get(internal, bytes);
        if (hit != null) return hit.bytes();
        byte[] renamed = HookRewriter.rename(bytes, template, internal);
        cache.put(internal, bytes, renamed, "");
        return renamed;
    }

    /**
     * What {@link #install} put in: the transformer, where plain threads' starts come from, and
     * what {@code availableProcessors()} answers on a thread qv4j pinned.
     */
    public record Installed(HookTransformer transformer, String threads, String processors) {
    }

    /**
     * Sets the handler, then instruments the JDK classes (retransforming those already loaded),
     * with the rewrites of earlier runs where the per-user {@link ClassCache} has them. Plain
     * threads' starts and ends come from JVMTI's thread events where the JNI library is loaded;
     * only where it is not, from a hook in {@code Thread.run()}, which means redefining
     * {@code Thread}: that deoptimizes what depends on it, throws away the compiles in flight, and
     * misses a thread whose class overrides {@code run()}.
     *
     * @param placesThreads bind is not off: plain threads may be placed, and the JNI library
     *                      defines the hook class and watches threads where it loads
     */
    public static Installed install(Instrumentation inst, ObjIntConsumer<Object> handler, boolean catchUp, boolean placesThreads) throws Exception {
        ClassCache cache = ClassCache.open();
        Class<?> hooks = hooksClass(inst, cache, placesThreads);
        setHandler(hooks, "handler", handler);
        if (catchUp) catchUp(hooks, true);
        Set<String> targets = HookTransformer.POOL_CLASSES;
        String threads;
        String processors = "its own PUs' count (bind=off pins nothing)";
        if (!placesThreads) {
            threads = "nowhere (bind=off)";
        } else {
            String unwatched = NativeAffinity.watchThreads(hooks, QvHooks.THREAD_START_HOOK, QvHooks.THREAD_EXIT_HOOK, QvHooks.OBJECT_HOOK);
            // a placed thread's mark is freed at its ThreadEnd event: no answering without the events
            String unanswered = unwatched == null ? NativeAffinity.answerProcessors() : unwatched;
            processors = unanswered == null ? "the JVM scope's count" : "its own PUs' count (" + unanswered + ")";
            if (unwatched == null) {
                threads = "JVMTI thread events";
            } else if (writingAotCache(inst)) {
                Log.info("this JVM writes an AOT cache (a training run) and the JNI library is not loaded (" + unwatched + "): java.lang.Thread is "
                        + "left as it is, since JDK 25 crashes writing the cache after a redefinition of Thread; in this run plain threads "
                        + "(Netty, Tomcat, Jetty, thread rules) are not placed, pools are");
                threads = "nowhere (an AOT training run)";
            } else {
                Log.debug("plain threads through Thread.run(), not JVMTI's thread events: " + unwatched);
                threads = "Thread.run()";
                targets = HookTransformer.TARGETS;
            }
        }
        HookTransformer t = new HookTransformer(HOOKS.replace('.', '/'), cache, targets);
        inst.addTransformer(t, true);
        List<Class<?>> again = new ArrayList<>();
        // ForkJoinPool's queue class loads with the pool's first use, after this, and is transformed as
        // it loads: it is loaded here, last, only where the pool class was loaded before the hooks
        List<String> load = new ArrayList<>(targets);
        if (load.remove(HookTransformer.FJWQ)) load.add(HookTransformer.FJWQ);
        for (String name : load) {
            if (name.equals(HookTransformer.FJWQ) && t.done().containsKey(HookTransformer.FJP.replace('/', '.'))) continue;
            String dotted = name.replace('/', '.');
            Class<?> c = Class.forName(dotted, false, null);
            if (!t.done().containsKey(dotted)) again.add(c);
        }
        if (!again.isEmpty()) inst.retransformClasses(again.toArray(new Class<?>[0]));
        if (t.failure() != null) throw new IllegalStateException("instrumenting failed", t.failure());
        return new Installed(t, threads, processors);
    }

    /**
     * Whether this JVM is a training run that writes an AOT cache (JDK 24+: {@code -XX:AOTMode=record},
     * {@code -XX:AOTCacheOutput}). Asked of the JVM itself ({@code jdk.internal.misc.CDS}), not read
     * from the command line, which options files and environment variables also feed.
     */
    static boolean writingAotCache(Instrumentation inst) {
        // A training run maps no archive, so its java.vm.info lacks "sharing": the usual run is
        // answered without exporting the package and the reflective call (on JDK 25 each costs
        // milliseconds cold).
        if (Runtime.version().feature() < 24 || System.getProperty("java.vm.info", "").contains("sharing")) return false;
        try {
            JavaBase.export(inst, "jdk.internal.misc");
            return (Boolean) Class.forName("jdk.internal.misc.CDS").getMethod("isDumpingStaticArchive").invoke(null);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError unknown) {
            return false;
        }
    }

    /** Sets one of the hook class's handler fields: through the JNI library where it is loaded, else by reflection. */
    static void setHandler(Class<?> hooks, String field, ObjIntConsumer<Object> h) throws ReflectiveOperationException {
        if (!NativeAffinity.setStaticField(hooks, field, "Ljava/util/function/ObjIntConsumer;", h)) hooks.getField(field).set(null, h);
    }

    /** Sets the catch-up flag of an installed hook class. */
    public static void catchUp(Class<?> hooks, boolean on) throws ReflectiveOperationException {
        hooks.getField("catchUp").set(null, on);
    }
}
