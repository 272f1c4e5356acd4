package io.qv4j.agent.inst;

import java.lang.instrument.Instrumentation;
import java.lang.invoke.MethodHandles;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The one place the agent reaches into {@code java.base} through the instrumentation: each package
 * opened or exported to the agent's own module only, when first needed (on a cold JVM each
 * redefinition and reflective call costs milliseconds), and only here, so that no other package
 * holds the {@link Instrumentation}.
 */
public final class JavaBase {

    private JavaBase() {
    }

    /**
     * A private lookup in {@code java.util.concurrent}, after opening it (and {@code more}) to the
     * agent; ConcurrentHashMap is loaded at JVM start: using it keeps the pool classes unloaded.
     */
    static MethodHandles.Lookup inJavaUtilConcurrent(Instrumentation inst, String... more) throws IllegalAccessException {
        Map<String, Set<Module>> open = new HashMap<>();
        open.put("java.util.concurrent", Set.of(JavaBase.class.getModule()));
        for (String p : more) open.put(p, Set.of(JavaBase.class.getModule()));
        inst.redefineModule(Object.class.getModule(), Set.of(), Map.of(), open, Set.of(), Map.of());
        return MethodHandles.privateLookupIn(ConcurrentHashMap.class, MethodHandles.lookup());
    }

    /** Exports {@code pkg} of {@code java.base} to the agent, for reflective calls into it. */
    static void export(Instrumentation inst, String pkg) {
        Module base = Object.class.getModule();
        Module me = JavaBase.class.getModule();
        if (!base.isExported(pkg, me)) inst.redefineModule(base, Set.of(), Map.of(pkg, Set.of(me)), Map.of(), Set.of(), Map.of());
    }

    /**
     * The JVM's agent properties ({@code jdk.internal.vm.VMSupport.getAgentProperties()}), found at
     * the first {@code get}; where that fails, the system properties.
     */
    public static Supplier<Properties> agentProperties(Instrumentation inst) {
        // a class, not a lambda: premain makes it, and a lambda costs milliseconds cold
        return new Supplier<Properties>() {
            @Override
            public Properties get() {
                try {
                    if (inst != null) export(inst, "jdk.internal.vm");
                    return (Properties) Class.forName("jdk.internal.vm.VMSupport").getMethod("getAgentProperties").invoke(null);
                } catch (Throwable e) {
                    return System.getProperties();
                }
            }
        };
    }
}
