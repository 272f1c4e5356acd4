package io.qv4j.agent.inst;

import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

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
 * Installs the boot part and the hooks. The hook class is defined inside {@code java.util.concurrent}
 * through a private lookup (after opening that package to the agent), not by appending to the boot
 * class path, which would turn off class-data sharing for every application class.
 */
public final class Boot {

    public static final String HOOKS = "java.util.concurrent.QvHooks";
    private static final String TEMPLATE = "io/qv4j/agent/boot/QvHooks";

    private Boot() {
    }

    /** The hook class, defining it on first use. */
    public static Class<?> hooksClass(Instrumentation inst) throws Exception {
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
        ClassReader r = new ClassReader(template);
        ClassWriter w = new ClassWriter(0);
        // A hand-written rename (the template only names itself as owner): asm.commons' remapper
        // loads ~20 more classes at start-up.
        final String target = HOOKS.replace('.', '/');
        r.accept(new ClassVisitor(Opcodes.ASM9, w) {
            @Override
            public void visit(int version, int access, String name, String sig, String superName, String[] itf) {
                super.visit(version, access, target, sig, superName, itf);
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] ex) {
                return new MethodVisitor(Opcodes.ASM9, super.visitMethod(access, name, desc, sig, ex)) {
                    @Override
                    public void visitFieldInsn(int op, String owner, String fname, String fdesc) {
                        super.visitFieldInsn(op, owner.equals(TEMPLATE) ? target : owner, fname, fdesc);
                    }

                    @Override
                    public void visitMethodInsn(int op, String owner, String mname, String mdesc, boolean itf) {
                        super.visitMethodInsn(op, owner.equals(TEMPLATE) ? target : owner, mname, mdesc, itf);
                    }
                };
            }
        }, ClassReader.SKIP_DEBUG);
        Module javaBase = Object.class.getModule();
        inst.redefineModule(javaBase, Set.of(), Map.of(),
                Map.of("java.util.concurrent", Set.of(Boot.class.getModule()),
                        // a started thread's Runnable is read to tell pool workers from plain threads
                        "java.lang", Set.of(Boot.class.getModule())), Set.of(), Map.of());
        // ConcurrentHashMap is loaded at JVM start: using it keeps the three target classes unloaded.
        return MethodHandles.privateLookupIn(ConcurrentHashMap.class, MethodHandles.lookup()).defineClass(w.toByteArray());
    }

    /** Sets the handler, then instruments the four JDK classes (retransforming those already loaded). */
    public static HookTransformer install(Instrumentation inst, ObjIntConsumer<Object> handler, boolean catchUp) throws Exception {
        Class<?> hooks = hooksClass(inst);
        hooks.getField("handler").set(null, handler);
        if (catchUp) hooks.getField("catchUp").set(null, true);
        HookTransformer t = new HookTransformer(HOOKS.replace('.', '/'));
        inst.addTransformer(t, true);
        List<Class<?>> again = new ArrayList<>();
        for (String name : HookTransformer.TARGETS) {
            String dotted = name.replace('/', '.');
            Class<?> c = Class.forName(dotted, false, null);
            if (!t.done().containsKey(dotted)) again.add(c);
        }
        if (!again.isEmpty()) inst.retransformClasses(again.toArray(new Class<?>[0]));
        if (t.failure() != null) throw new IllegalStateException("instrumenting failed", t.failure());
        return t;
    }

    /** Sets the catch-up flag of an installed hook class. */
    public static void catchUp(Class<?> hooks, boolean on) throws ReflectiveOperationException {
        hooks.getField("catchUp").set(null, on);
    }
}
