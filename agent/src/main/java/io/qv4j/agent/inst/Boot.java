package io.qv4j.agent.inst;

import io.qv4j.agent.bind.NativeAffinity;
import io.qv4j.agent.log.Log;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ObjIntConsumer;

/**
 * Installs the boot part and the hooks. The hook class is defined inside {@code java.util.concurrent},
 * not by appending to the boot class path, which would turn off class-data sharing for every
 * application class: through the agent's JNI library where the binder loads it anyway
 * ({@code bind=on}), else through a private lookup after opening that package (and
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
        byte[] template;
        try (InputStream in = Boot.class.getClassLoader().getResourceAsStream(TEMPLATE + ".class")) {
            if (in == null) throw new IOException(TEMPLATE + ".class missing from the agent jar");
            template = in.readAllBytes();
        }
        final String target = HOOKS.replace('.', '/');
        ClassCache.Entry hit = cache.get(target, template);
        byte[] renamed = hit != null ? hit.bytes() : HookRewriter.rename(template, TEMPLATE, target);
        if (hit == null) cache.put(target, template, renamed, "");
        if (natively && NativeAffinity.load() != null) return NativeAffinity.defineBootClass(target, renamed);
        inst.redefineModule(Object.class.getModule(), Set.of(), Map.of(),
                Map.of("java.util.concurrent", Set.of(Boot.class.getModule()),
                        // a started thread's Runnable is read to tell pool workers from plain threads
                        "java.lang", Set.of(Boot.class.getModule())), Set.of(), Map.of());
        // ConcurrentHashMap is loaded at JVM start: using it keeps the three target classes unloaded.
        return MethodHandles.privateLookupIn(ConcurrentHashMap.class, MethodHandles.lookup()).defineClass(renamed);
    }

    /**
     * Sets the handler, then instruments the four JDK classes (retransforming those already
     * loaded), with the rewrites of earlier runs where the per-user {@link ClassCache} has them.
     *
     * @param natively define the hook class through the JNI library ({@code bind=on} loads it anyway)
     */
    public static HookTransformer install(Instrumentation inst, ObjIntConsumer<Object> handler, boolean catchUp, boolean natively) throws Exception {
        ClassCache cache = ClassCache.open();
        Class<?> hooks = hooksClass(inst, cache, natively);
        setHandler(hooks, "handler", handler);
        if (catchUp) catchUp(hooks, true);
        HookTransformer t = new HookTransformer(HOOKS.replace('.', '/'), cache);
        inst.addTransformer(t, true);
        boolean aot = writingAotCache(inst);
        List<Class<?>> again = new ArrayList<>();
        for (String name : HookTransformer.TARGETS) {
            String dotted = name.replace('/', '.');
            if (aot && name.equals(HookTransformer.THREAD)) continue;
            Class<?> c = Class.forName(dotted, false, null);
            if (!t.done().containsKey(dotted)) again.add(c);
        }
        if (aot) {
            Log.info("this JVM writes an AOT cache (a training run): java.lang.Thread is left as it is, since JDK 25 crashes writing the cache "
                    + "after a redefinition of Thread; in this run plain threads (Netty, Tomcat, Jetty, thread rules) are not placed, pools are");
        }
        if (!again.isEmpty()) inst.retransformClasses(again.toArray(new Class<?>[0]));
        if (t.failure() != null) throw new IllegalStateException("instrumenting failed", t.failure());
        return t;
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
            inst.redefineModule(Object.class.getModule(), Set.of(), Map.of("jdk.internal.misc", Set.of(Boot.class.getModule())), Map.of(), Set.of(), Map.of());
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
