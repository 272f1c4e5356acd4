package io.qv4j.agent.inst;

import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A plain transformer for exactly three boot classes, written with the ASM that ships inside
 * ByteBuddy (no AgentBuilder: it costs ~300 ms at start-up). It inserts {@code ALOAD 0;
 * INVOKESTATIC java/util/concurrent/QvHooks.x(Object)} at method entry or before each return:
 * no branches, so stack map frames stay valid.
 */
public final class HookTransformer implements ClassFileTransformer {

    public static final String TPE = "java/util/concurrent/ThreadPoolExecutor";
    public static final String FJP = "java/util/concurrent/ForkJoinPool";
    public static final String FJWT = "java/util/concurrent/ForkJoinWorkerThread";
    public static final Set<String> TARGETS = Set.of(TPE, FJP, FJWT);

    private final String hooks;
    /** Class → the hooks inserted into it (e.g. "runWorker+"): for the log and the tests. */
    private final Map<String, String> done = new ConcurrentHashMap<>();
    private volatile Throwable failure;

    public HookTransformer(String hooksInternalName) {
        this.hooks = hooksInternalName;
    }

    public Map<String, String> done() {
        return done;
    }

    public Throwable failure() {
        return failure;
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain pd, byte[] bytes) {
        if (loader != null || className == null || !TARGETS.contains(className)) return null;
        try {
            byte[] out = instrument(className, bytes);
            return out;
        } catch (Throwable t) {
            failure = t;
            return null;
        }
    }

    byte[] instrument(String className, byte[] bytes) {
        ClassReader r = new ClassReader(bytes);
        ClassWriter w = new ClassWriter(r, ClassWriter.COMPUTE_MAXS);
        StringBuilder inserted = new StringBuilder();
        r.accept(new ClassVisitor(Opcodes.ASM9, w) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, name, desc, sig, exceptions);
                if ((access & Opcodes.ACC_STATIC) != 0) return mv;
                String enter = null;
                String exit = null;
                switch (className) {
                    case TPE -> {
                        if (name.equals("<init>")) exit = "poolCreated";
                        else if (name.equals("runWorker") && desc.equals("(Ljava/util/concurrent/ThreadPoolExecutor$Worker;)V")) enter = "workerStart";
                        else if (name.equals("processWorkerExit") && desc.equals("(Ljava/util/concurrent/ThreadPoolExecutor$Worker;Z)V")) enter = "workerExit";
                        else if (name.equals("getTask") && desc.equals("()Ljava/lang/Runnable;")) enter = "getTask";
                    }
                    case FJP -> {
                        if (name.equals("<init>")) exit = "poolCreated";
                    }
                    case FJWT -> {
                        if (name.equals("run") && desc.equals("()V")) {
                            enter = "fjStart";
                            exit = "fjExit";
                        }
                    }
                    default -> {
                    }
                }
                if (enter == null && exit == null) return mv;
                if (inserted.indexOf(name + " ") < 0) inserted.append(name).append(' ');
                return new Inserter(mv, hooks, enter, exit);
            }
        }, 0);
        done.put(className.replace('/', '.'), inserted.toString().strip());
        return w.toByteArray();
    }

    private static final class Inserter extends MethodVisitor {
        private final String hooks;
        private final String enter;
        private final String exit;

        Inserter(MethodVisitor mv, String hooks, String enter, String exit) {
            super(Opcodes.ASM9, mv);
            this.hooks = hooks;
            this.enter = enter;
            this.exit = exit;
        }

        @Override
        public void visitCode() {
            super.visitCode();
            if (enter != null) call(enter);
        }

        @Override
        public void visitInsn(int opcode) {
            if (exit != null && opcode == Opcodes.RETURN) call(exit);
            super.visitInsn(opcode);
        }

        private void call(String method) {
            super.visitVarInsn(Opcodes.ALOAD, 0);
            super.visitMethodInsn(Opcodes.INVOKESTATIC, hooks, method, "(Ljava/lang/Object;)V", false);
        }
    }
}
