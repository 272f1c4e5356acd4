package io.qv4j.agent.launch;

import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReader;
import java.lang.module.ModuleReference;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * JDK 24 and later warn when code loads a native library or links a native method from a module
 * without native access, and refuse it under {@code --illegal-native-access=deny}. The JDK keeps
 * that access per named module, and once for all unnamed modules together: granting it there
 * would also take the application's own native code its warning and its refusal. So the agent's
 * classes that do native work, its binder package and JNA's core (the OpenHFT fallback), are a
 * named module of their own, {@value #NAME}, in a layer over the boot layer, defined to the
 * agent's class loader before any of its classes loads. {@code java.lang} is opened to that module
 * alone, and the binder grants its module native access before it loads its library
 * ({@code io.qv4j.agent.bind.NativeAccess}). JDK 17 to 23 are left as they were: 22 and 23 check
 * only the foreign function API's restricted methods, which the agent does not call. The
 * command line ({@code java -jar}) has no {@link Instrumentation}, and its manifest's
 * {@code Enable-Native-Access: ALL-UNNAMED} serves it.
 */
final class NativeModule {

    static final String NAME = "io.qv4j.agent.natives";
    /** The packages whose classes load native libraries or declare native methods. */
    static final Set<String> PACKAGES = Set.of("io.qv4j.agent.bind", "com.sun.jna");
    /** The first JDK that checks JNI (JEP 472). */
    static final int FIRST_JDK = 24;

    private NativeModule() {
    }

    /**
     * Defines the module to {@code loader}, which has defined none of its classes yet, and opens
     * {@code java.lang} to it. Anything that fails leaves the classes in the loader's unnamed
     * module, as on older JDKs (the JVM's warning, or its refusal, then says so).
     */
    static void define(ClassLoader loader, Instrumentation inst) {
        if (Runtime.version().feature() < FIRST_JDK || inst == null) return;
        try {
            ModuleDescriptor descriptor = ModuleDescriptor.newAutomaticModule(NAME).packages(PACKAGES).build();
            ModuleReference reference = new ModuleReference(descriptor, null) {
                @Override
                public ModuleReader open() throws IOException {
                    throw new IOException(NAME + " is read through its class loader"); // no one reads it as a module file
                }
            };
            ModuleFinder finder = new ModuleFinder() {
                @Override
                public Optional<ModuleReference> find(String name) {
                    return NAME.equals(name) ? Optional.of(reference) : Optional.empty();
                }

                @Override
                public Set<ModuleReference> findAll() {
                    return Set.of(reference);
                }
            };
            ModuleLayer boot = ModuleLayer.boot();
            Configuration cf = boot.configuration().resolve(finder, ModuleFinder.of(), Set.of(NAME));
            Module module = ModuleLayer.defineModules(cf, List.of(boot), name -> loader).layer().findModule(NAME).orElseThrow();
            inst.redefineModule(Object.class.getModule(), Set.of(), Map.of(), Map.of("java.lang", Set.of(module)), Set.of(), Map.of());
        } catch (RuntimeException | LinkageError e) {
            // as on older JDKs
        }
    }
}
