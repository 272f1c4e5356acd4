package io.qv4j.agent.inst;

import io.qv4j.agent.boot.QvHooks;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A plain transformer for exactly four boot classes, written with the ASM that ships inside
 * ByteBuddy (no AgentBuilder: it costs ~300 ms at start-up). It inserts {@code ALOAD 0;
 * INVOKESTATIC java/util/concurrent/QvHooks.x(Object)} at method entry or before each return
 * ({@link #hooks()} lists them; the names are constants of {@link QvHooks}):
 * no branches, so stack map frames stay valid.
 */
public final class HookTransformer implements ClassFileTransformer {

    public static final String TPE = "java/util/concurrent/ThreadPoolExecutor";
    public static final String FJP = "java/util/concurrent/ForkJoinPool";
    public static final String FJWT = "java/util/concurrent/ForkJoinWorkerThread";
    public static final String THREAD = "java/lang/Thread";
    public static final Set<String> TARGETS = Set.of(TPE, FJP, FJWT, THREAD);

    /** Where a hook goes: a method (any descriptor when null), the hook at its entry and before its returns. */
    private static final class Site {
        final String owner;
        final String method;
        final String desc;
        final String enter;
        final String exit;

        Site(String owner, String method, String desc, String enter, String exit) {
            this.owner = owner;
            this.method = method;
            this.desc = desc;
            this.enter = enter;
            this.exit = exit;
        }
    }

    /** Every hook this transformer inserts, and where. All hooks take the instance: descriptor {@link QvHooks#OBJECT_HOOK}. */
    private static final Site[] SITES = {
        new Site(TPE, "<init>", null, null, QvHooks.POOL_CREATED_HOOK),
        new Site(TPE, "runWorker", "(Ljava/util/concurrent/ThreadPoolExecutor$Worker;)V", QvHooks.WORKER_START_HOOK, null),
        new Site(TPE, "processWorkerExit", "(Ljava/util/concurrent/ThreadPoolExecutor$Worker;Z)V", QvHooks.WORKER_EXIT_HOOK, null),
        new Site(TPE, "getTask", "()Ljava/lang/Runnable;", QvHooks.GET_TASK_HOOK, null),
        new Site(FJP, "<init>", null, null, QvHooks.POOL_CREATED_HOOK),
        new Site(FJWT, "run", "()V", QvHooks.FJ_START_HOOK, QvHooks.FJ_EXIT_HOOK),
        // where every platform thread whose class does not override run() starts (JDK 17 and 25
        // alike: the VM's thread entry calls run() virtually); virtual threads never come here
        new Site(THREAD, "run", "()V", QvHooks.THREAD_START_HOOK, QvHooks.THREAD_EXIT_HOOK),
    };

    private final String hooks;
    /** Class → the hooks inserted into it (e.g. "runWorker+"): for the log and the tests. */
    private final Map<String, String> done = new ConcurrentHashMap<>();
    private volatile Throwable failure;

    public HookTransformer(String hooksInternalName) {
        this.hooks = hooksInternalName;
    }

    /** The hook methods this transformer can insert calls to (on the hook class it is given). */
    public static List<HookMethod> hooks() {
        List<HookMethod> out = new ArrayList<>();
        for (Site s : SITES) {
            for (String h : new String[] {s.enter, s.exit}) {
                HookMethod m = new HookMethod(h, QvHooks.OBJECT_HOOK);
                if (h != null && !out.contains(m)) out.add(m);
            }
        }
        return out;
    }

    /** The hook site of a non-static method, or null. */
    private static Site site(String owner, String name, String desc) {
        for (Site s : SITES) {
            if (s.owner.equals(owner) && s.method.equals(name) && (s.desc == null || s.desc.equals(desc))) return s;
        }
        return null;
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
            return instrument(className, bytes);
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
                Site site = site(className, name, desc);
                if (site == null) return mv;
                String enter = site.enter;
                String exit = site.exit;
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
            super.visitMethodInsn(Opcodes.INVOKESTATIC, hooks, method, QvHooks.OBJECT_HOOK, false);
        }
    }
}
