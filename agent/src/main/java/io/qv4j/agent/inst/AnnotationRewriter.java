package io.qv4j.agent.inst;

import io.qv4j.agent.annotations.Annotations;
import io.qv4j.agent.boot.QvHooks;
import io.qv4j.agent.config.Policy;
import io.qv4j.api.Color;
import io.qv4j.api.Kind;
import io.qv4j.topology.HwType;
import net.bytebuddy.jar.asm.AnnotationVisitor;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.FieldVisitor;
import net.bytebuddy.jar.asm.Label;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;
import java.util.HashMap;
import java.util.Map;

/** The ASM side of {@link AnnotationTransformer}: what it inserts, where, is said there. */
final class AnnotationRewriter {

    private final String hooks;

    AnnotationRewriter(String hooksInternalName) {
        this.hooks = hooksInternalName;
    }

    /** The instrumented class, or null when it uses neither annotation. */
    byte[] instrument(byte[] bytes) {
        ClassReader r = new ClassReader(bytes);
        ClassWriter w = new ClassWriter(r, ClassWriter.COMPUTE_MAXS);
        Visitor v = new Visitor(w);
        r.accept(v, ClassReader.EXPAND_FRAMES);
        return v.changed ? w.toByteArray() : null;
    }

    /** Collects an annotation's written elements into a policy. */
    private abstract static class Collector extends AnnotationVisitor {
        HwType splitAt;
        int split;
        Color color;
        int ordinal = -1;
        Kind kind;
        int efficiency = -1;
        Boolean exclusive;
        io.qv4j.api.Memory memory;

        Collector() {
            super(Opcodes.ASM9);
        }

        @Override
        public void visit(String name, Object value) {
            if (value instanceof Boolean b && name.equals("exclusive")) exclusive = b;
            if (value instanceof Integer i) {
                if (name.equals("split")) split = Math.max(0, i);
                else if (name.equals("ordinal")) ordinal = i;
                else if (name.equals("efficiency")) efficiency = i;
            }
        }

        @Override
        public void visitEnum(String name, String desc, String value) {
            try {
                if (name.equals("splitAt") && desc.equals("Lio/qv4j/topology/HwType;")) splitAt = HwType.valueOf(value);
                else if (name.equals("color") && desc.equals("Lio/qv4j/api/Color;")) color = Color.valueOf(value);
                else if (name.equals("kind") && desc.equals("Lio/qv4j/api/Kind;")) kind = Kind.valueOf(value);
                else if (name.equals("memory") && desc.equals("Lio/qv4j/api/Memory;")) memory = io.qv4j.api.Memory.valueOf(value);
            } catch (IllegalArgumentException e) {
                // a newer api's constant: not given
            }
        }

        Policy policy(String source) {
            if (color == Color.UNDEFINED) color = null; // places no task: not a placement policy
            return new Policy(splitAt, split, color, ordinal, kind, efficiency, exclusive, memory, source);
        }

        @Override
        public abstract void visitEnd();
    }

    private final class Visitor extends ClassVisitor {
        String name;
        String dotted;
        boolean frames;
        int classId = -1;
        final Map<String, Integer> fields = new HashMap<>();
        boolean changed;

        Visitor(ClassVisitor cv) {
            super(Opcodes.ASM9, cv);
        }

        @Override
        public void visit(int version, int access, String name, String sig, String superName, String[] itf) {
            this.name = name;
            this.dotted = name.replace('/', '.');
            this.frames = (version & 0xFFFF) >= Opcodes.V1_6;
            super.visit(version, access, name, sig, superName, itf);
        }

        @Override
        public AnnotationVisitor visitAnnotation(String desc, boolean visible) {
            AnnotationVisitor av = super.visitAnnotation(desc, visible);
            if (!desc.equals(AnnotationTransformer.PLACEMENT)) return av;
            return new Collector() {
                @Override
                public void visitEnd() {
                    classId = Annotations.registerPlacement(policy("@Placement on class " + dotted));
                }
            };
        }

        @Override
        public FieldVisitor visitField(int access, String fname, String fdesc, String sig, Object value) {
            FieldVisitor fv = super.visitField(access, fname, fdesc, sig, value);
            return new FieldVisitor(Opcodes.ASM9, fv) {
                @Override
                public AnnotationVisitor visitAnnotation(String desc, boolean visible) {
                    AnnotationVisitor av = super.visitAnnotation(desc, visible);
                    if (!desc.equals(AnnotationTransformer.PLACEMENT) || fdesc.charAt(0) != 'L') return av;
                    return new Collector() {
                        @Override
                        public void visitEnd() {
                            fields.put(fname + fdesc, Annotations.registerPlacement(policy("@Placement on field " + dotted + "." + fname)));
                        }
                    };
                }
            };
        }

        @Override
        public MethodVisitor visitMethod(int access, String mname, String mdesc, String sig, String[] ex) {
            MethodVisitor mv = super.visitMethod(access, mname, mdesc, sig, ex);
            if ((access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) return mv;
            boolean useClass = (access & Opcodes.ACC_BRIDGE) == 0;
            return new Inserter(mv, this, access, mname, mdesc, useClass ? classId : -1);
        }
    }

    private final class Inserter extends MethodVisitor {
        private final Visitor owner;
        private final int access;
        private final String mname;
        private final String mdesc;
        private int placeId;
        private int bindId = -1;
        private boolean wrapped;
        private final Label start = new Label();
        private final Label end = new Label();
        private final Label handler = new Label();

        Inserter(MethodVisitor mv, Visitor owner, int access, String mname, String mdesc, int classId) {
            super(Opcodes.ASM9, mv);
            this.owner = owner;
            this.access = access;
            this.mname = mname;
            this.mdesc = mdesc;
            this.placeId = classId;
        }

        private String where() {
            return owner.dotted + "." + mname + "()";
        }

        @Override
        public AnnotationVisitor visitAnnotation(String desc, boolean visible) {
            AnnotationVisitor av = super.visitAnnotation(desc, visible);
            if (desc.equals(AnnotationTransformer.PLACEMENT)) {
                return new Collector() {
                    @Override
                    public void visitEnd() {
                        placeId = Annotations.registerPlacement(policy("@Placement on " + where()));
                    }
                };
            }
            if (desc.equals(AnnotationTransformer.BIND)) {
                return new Collector() {
                    @Override
                    public void visitEnd() {
                        bindId = Annotations.registerBind(policy("@Bind on " + where()));
                    }
                };
            }
            return av;
        }

        @Override
        public void visitCode() {
            super.visitCode();
            if (placeId < 0 && bindId < 0) return;
            owner.changed = true;
            if (placeId >= 0) call(QvHooks.PLACEMENT_ENTER_HOOK, placeId);
            if (bindId >= 0) call(QvHooks.BIND_ENTER_HOOK, bindId);
            if (!mname.equals("<init>")) {
                wrapped = true;
                super.visitLabel(start);
            }
        }

        @Override
        public void visitInsn(int opcode) {
            if ((placeId >= 0 || bindId >= 0) && opcode >= Opcodes.IRETURN && opcode <= Opcodes.RETURN) exits();
            super.visitInsn(opcode);
        }

        @Override
        public void visitFieldInsn(int opcode, String fowner, String fname, String fdesc) {
            if ((opcode == Opcodes.PUTFIELD || opcode == Opcodes.PUTSTATIC) && fowner.equals(owner.name)) {
                Integer id = owner.fields.get(fname + fdesc);
                if (id != null) {
                    owner.changed = true;
                    super.visitInsn(Opcodes.DUP);
                    push(id);
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, hooks, QvHooks.FIELD_SET_HOOK, QvHooks.VALUE_ID_HOOK, false);
                }
            }
            super.visitFieldInsn(opcode, fowner, fname, fdesc);
        }

        @Override
        public void visitMaxs(int maxStack, int maxLocals) {
            if (wrapped) {
                super.visitLabel(end);
                super.visitLabel(handler);
                if (owner.frames) {
                    Type[] args = Type.getArgumentTypes(mdesc);
                    boolean isStatic = (access & Opcodes.ACC_STATIC) != 0;
                    Object[] locals = new Object[args.length + (isStatic ? 0 : 1)];
                    int k = 0;
                    if (!isStatic) locals[k++] = owner.name;
                    for (Type t : args) locals[k++] = frameType(t);
                    super.visitFrame(Opcodes.F_NEW, locals.length, locals, 1, new Object[] {"java/lang/Throwable"});
                }
                exits();
                super.visitInsn(Opcodes.ATHROW);
                super.visitTryCatchBlock(start, end, handler, null);
            }
            super.visitMaxs(maxStack, maxLocals);
        }

        private void exits() {
            if (bindId >= 0) call(QvHooks.BIND_EXIT_HOOK, bindId);
            if (placeId >= 0) call(QvHooks.PLACEMENT_EXIT_HOOK, placeId);
        }

        private void call(String hook, int id) {
            push(id);
            super.visitMethodInsn(Opcodes.INVOKESTATIC, hooks, hook, QvHooks.ID_HOOK, false);
        }

        private void push(int id) {
            if (id <= Short.MAX_VALUE) super.visitIntInsn(Opcodes.SIPUSH, id);
            else super.visitLdcInsn(id);
        }
    }

    private static Object frameType(Type t) {
        return switch (t.getSort()) {
            case Type.BOOLEAN, Type.CHAR, Type.BYTE, Type.SHORT, Type.INT -> Opcodes.INTEGER;
            case Type.FLOAT -> Opcodes.FLOAT;
            case Type.LONG -> Opcodes.LONG;
            case Type.DOUBLE -> Opcodes.DOUBLE;
            case Type.ARRAY -> t.getDescriptor();
            default -> t.getInternalName();
        };
    }
}
