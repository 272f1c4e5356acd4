package io.qv4j.agent.inst;

import io.qv4j.agent.boot.QvHooks;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.Label;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

/**
 * The bytecode rewrites the hooks need, with the ASM that ships inside ByteBuddy (no AgentBuilder:
 * it costs ~300 ms at start-up). Kept apart from {@link HookTransformer} and {@link Boot} so that
 * the JVM loads ASM only when this class runs, which a start that finds its rewrites in the
 * {@link ClassCache} never does.
 */
final class HookRewriter {

    private HookRewriter() {
    }

    /**
     * {@code bytes} with the hooks of {@link HookTransformer#site} inserted; the names of the
     * methods that got one are appended to {@code inserted}, each followed by a space. Methods
     * without a hook are copied verbatim (the writer shares the reader's constant pool).
     */
    static byte[] insertHooks(String className, byte[] bytes, String hooks, StringBuilder inserted) {
        ClassReader r = new ClassReader(bytes);
        ClassWriter w = new ClassWriter(r, ClassWriter.COMPUTE_MAXS);
        r.accept(new ClassVisitor(Opcodes.ASM9, w) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, name, desc, sig, exceptions);
                if ((access & Opcodes.ACC_STATIC) != 0) return mv;
                HookTransformer.Site site = HookTransformer.site(className, name, desc);
                if (site == null || site.enter == null && site.exit == null) return mv;
                if (inserted.indexOf(name + " ") < 0) inserted.append(name).append(' ');
                return new Inserter(mv, className, hooks, site.enter, site.exit, !name.equals("<init>"));
            }
        }, 0);
        return w.toByteArray();
    }

    /**
     * The template class renamed from {@code from} to {@code to}. A hand-written rename (the
     * template only names itself as owner): asm.commons' remapper loads ~20 more classes.
     */
    static byte[] rename(byte[] template, String from, String to) {
        ClassReader r = new ClassReader(template);
        ClassWriter w = new ClassWriter(0);
        r.accept(new ClassVisitor(Opcodes.ASM9, w) {
            @Override
            public void visit(int version, int access, String name, String sig, String superName, String[] itf) {
                super.visit(version, access, to, sig, superName, itf);
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] ex) {
                return new MethodVisitor(Opcodes.ASM9, super.visitMethod(access, name, desc, sig, ex)) {
                    @Override
                    public void visitFieldInsn(int op, String owner, String fname, String fdesc) {
                        super.visitFieldInsn(op, owner.equals(from) ? to : owner, fname, fdesc);
                    }

                    @Override
                    public void visitMethodInsn(int op, String owner, String mname, String mdesc, boolean itf) {
                        super.visitMethodInsn(op, owner.equals(from) ? to : owner, mname, mdesc, itf);
                    }
                };
            }
        }, ClassReader.SKIP_DEBUG);
        return w.toByteArray();
    }

    /**
     * Inserts {@code ALOAD 0; INVOKESTATIC hooks.enter} at entry and {@code hooks.exit} before each
     * RETURN and when an exception leaves the method: a last handler, for any {@code Throwable},
     * over the whole body calls it and throws again (a fork/join worker whose
     * {@code onTermination} throws leaves {@code run()} that way, and must not stay listed alive).
     * Not in a constructor: one that throws made no pool.
     */
    private static final class Inserter extends MethodVisitor {
        private final String owner;
        private final String hooks;
        private final String enter;
        private final String exit;
        private final Label body;

        Inserter(MethodVisitor mv, String owner, String hooks, String enter, String exit, boolean onThrow) {
            super(Opcodes.ASM9, mv);
            this.owner = owner;
            this.hooks = hooks;
            this.enter = enter;
            this.exit = exit;
            this.body = exit != null && onThrow ? new Label() : null;
        }

        @Override
        public void visitCode() {
            super.visitCode();
            if (enter != null) call(enter);
            if (body != null) super.visitLabel(body);
        }

        @Override
        public void visitInsn(int opcode) {
            if (exit != null && opcode == Opcodes.RETURN) call(exit);
            super.visitInsn(opcode);
        }

        @Override
        public void visitMaxs(int maxStack, int maxLocals) {
            if (body != null) {
                // Visited after the method's own handlers, so last in the table: it sees only what they let out.
                Label thrown = new Label();
                super.visitTryCatchBlock(body, thrown, thrown, "java/lang/Throwable");
                super.visitLabel(thrown);
                super.visitFrame(Opcodes.F_FULL, 1, new Object[] {owner}, 1, new Object[] {"java/lang/Throwable"});
                call(exit);
                super.visitInsn(Opcodes.ATHROW);
            }
            super.visitMaxs(maxStack, maxLocals);
        }

        private void call(String method) {
            super.visitVarInsn(Opcodes.ALOAD, 0);
            super.visitMethodInsn(Opcodes.INVOKESTATIC, hooks, method, QvHooks.OBJECT_HOOK, false);
        }
    }
}
