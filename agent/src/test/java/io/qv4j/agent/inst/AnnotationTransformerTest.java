package io.qv4j.agent.inst;

import io.qv4j.agent.boot.QvHooks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TryCatchBlockNode;

import java.lang.reflect.InvocationTargetException;
import java.net.URI;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The annotation transformer applied to a small annotated class: the result passes ASM's verifier,
 * carries the hook calls where the annotations are and none elsewhere, and, run against the real
 * hook class, reports enter and exit (normal and exceptional) and field stores in order.
 */
class AnnotationTransformerTest {

    private static final String TEMPLATE_HOOKS = QvHooks.class.getName().replace('.', '/');
    private static final String SAMPLE = AnnotatedSample.class.getName().replace('.', '/');
    private static final String ENTER = QvHooks.PLACEMENT_ENTER_HOOK + QvHooks.ID_HOOK;
    private static final String EXIT = QvHooks.PLACEMENT_EXIT_HOOK + QvHooks.ID_HOOK;

    @AfterEach
    void noHandler() {
        QvHooks.annotations = null;
    }

    private static byte[] transformed(Class<?> c, String hooks) throws Exception {
        byte[] out = new AnnotationTransformer(hooks).instrument(Bytecode.classBytes(c.getName().replace('.', '/')));
        assertNotNull(out, c + " instrumented");
        Bytecode.assertVerifies(out, AnnotationTransformerTest.class.getClassLoader());
        return out;
    }

    private static MethodNode method(ClassNode c, String name) {
        for (MethodNode m : c.methods) if (m.name.equals(name)) return m;
        throw new AssertionError(name + " not in " + c.name);
    }

    @Test
    void annotatedMethodsAreWrappedAndOthersLeftAlone() throws Exception {
        ClassNode c = Bytecode.tree(transformed(AnnotatedSample.class, Boot.HOOKS.replace('.', '/')));
        String hooks = Boot.HOOKS.replace('.', '/');

        MethodNode placed = method(c, "placed");
        List<String> calls = Bytecode.callsTo(placed, hooks);
        assertEquals(ENTER, calls.get(0));
        // one exit per return, one in the catch-all handler that rethrows
        int returns = Bytecode.count(placed, Opcodes.IRETURN);
        assertEquals(1 + returns + 1, calls.size(), calls.toString());
        for (String call : calls.subList(1, calls.size())) assertEquals(EXIT, call);
        assertCatchAllRethrows(placed, QvHooks.PLACEMENT_EXIT_HOOK);

        MethodNode bound = method(c, "bound");
        assertEquals(List.of(QvHooks.BIND_ENTER_HOOK + QvHooks.ID_HOOK, QvHooks.BIND_EXIT_HOOK + QvHooks.ID_HOOK,
                QvHooks.BIND_EXIT_HOOK + QvHooks.ID_HOOK), Bytecode.callsTo(bound, hooks));
        assertCatchAllRethrows(bound, QvHooks.BIND_EXIT_HOOK);

        assertEquals(List.of(), Bytecode.callsTo(method(c, "unannotated"), hooks));
        assertEquals(List.of(), Bytecode.callsTo(method(c, "<init>"), hooks), "the class itself carries no annotation");
        assertEquals(List.of(QvHooks.FIELD_SET_HOOK + QvHooks.VALUE_ID_HOOK, QvHooks.FIELD_SET_HOOK + QvHooks.VALUE_ID_HOOK),
                Bytecode.callsTo(method(c, "assign"), hooks), "the two annotated fields, not the plain one");
    }

    @Test
    void anAnnotatedClassWrapsItsConstructorsAndMethodsStaticOnesToo() throws Exception {
        String hooks = Boot.HOOKS.replace('.', '/');
        ClassNode c = Bytecode.tree(transformed(AnnotatedSample.Whole.class, hooks));
        assertEquals(List.of(ENTER, EXIT), Bytecode.callsTo(method(c, "<init>"), hooks));
        assertTrue(method(c, "<init>").tryCatchBlocks.isEmpty(), "no handler around a constructor");
        assertEquals(List.of(ENTER, EXIT, EXIT), Bytecode.callsTo(method(c, "work"), hooks));
        assertEquals(List.of(ENTER, EXIT, EXIT), Bytecode.callsTo(method(c, "helper"), hooks));
    }

    @Test
    void aClassThatUsesTheApiWithoutTheAnnotationsIsNeitherParsedNorRewritten() throws Exception {
        byte[] bytes = Bytecode.classBytes(AnnotatedSample.NoAnnotation.class.getName().replace('.', '/'));
        assertTrue(new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1).contains("Lio/qv4j/api/"), "the sample names an api type");
        assertTrue(!AnnotationTransformer.mentions(bytes), "not parsed");
        assertNull(new AnnotationTransformer(TEMPLATE_HOOKS).instrument(bytes));
        assertTrue(AnnotationTransformer.mentions(Bytecode.classBytes(AnnotatedSample.class.getName().replace('.', '/'))));
        assertTrue(!AnnotationTransformer.mentions(Bytecode.classBytes("java/lang/String")));
    }

    /**
     * The constant-pool walk against a search of the whole class, on every class of this build
     * (annotated samples and test apps among them) and of java.base's java.util: whatever the
     * search finds and the walk does not has no annotation to rewrite; whatever the walk finds, the
     * search finds too. Cut-short and damaged bytes give an answer, never an exception.
     */
    @Test
    void theConstantPoolWalkMissesNoAnnotatedClass() throws Exception {
        List<byte[]> classes = new ArrayList<>();
        for (String dir : List.of("target/classes", "target/test-classes")) {
            try (Stream<Path> s = Files.walk(Path.of(dir))) {
                for (Path f : s.filter(f -> f.toString().endsWith(".class")).toList()) classes.add(Files.readAllBytes(f));
            }
        }
        try (Stream<Path> s = Files.walk(FileSystems.getFileSystem(URI.create("jrt:/")).getPath("/modules/java.base/java/util"))) {
            for (Path f : s.filter(f -> f.toString().endsWith(".class")).toList()) classes.add(Files.readAllBytes(f));
        }
        int annotated = 0;
        AnnotationTransformer t = new AnnotationTransformer(TEMPLATE_HOOKS);
        Random random = new Random(7);
        for (byte[] b : classes) {
            boolean walked = AnnotationTransformer.mentions(b);
            boolean searched = AnnotationTransformer.searched(b);
            if (walked) {
                assertTrue(searched);
                annotated++;
            } else if (searched) {
                assertNull(t.instrument(b), "a class with annotations the walk missed");
            }
            byte[] cut = Arrays.copyOf(b, random.nextInt(b.length));
            AnnotationTransformer.mentions(cut);
            if (cut.length > 0) {
                cut[random.nextInt(cut.length)] ^= (byte) (1 + random.nextInt(255));
                AnnotationTransformer.mentions(cut);
            }
        }
        assertTrue(classes.size() > 500, classes.size() + " classes");
        assertTrue(annotated >= 2, annotated + " annotated classes found");
    }

    @Test
    void theRewrittenClassReportsEnterExitAndFieldStoresAtRunTime() throws Exception {
        Class<?> c = define(transformed(AnnotatedSample.class, TEMPLATE_HOOKS));
        List<int[]> codes = new ArrayList<>();
        List<Object> values = new ArrayList<>();
        QvHooks.annotations = (value, code) -> {
            codes.add(new int[] {code >>> QvHooks.OP_SHIFT, code & QvHooks.OP_MASK});
            values.add(value);
        };
        Object sample = c.getConstructor().newInstance();
        Method placed = c.getMethod("placed", int.class);

        assertEquals(8, placed.invoke(sample, 7));
        assertEquals(2, codes.size());
        int id = codes.get(0)[0];
        assertOp(codes.get(0), id, QvHooks.PLACEMENT_ENTER);
        assertOp(codes.get(1), id, QvHooks.PLACEMENT_EXIT);

        codes.clear();
        InvocationTargetException thrown = assertThrows(InvocationTargetException.class, () -> placed.invoke(sample, -1));
        assertEquals(IllegalArgumentException.class, thrown.getCause().getClass(), "the application's exception, rethrown");
        assertEquals(2, codes.size(), "exit on the exceptional path too");
        assertOp(codes.get(0), id, QvHooks.PLACEMENT_ENTER);
        assertOp(codes.get(1), id, QvHooks.PLACEMENT_EXIT);

        codes.clear();
        assertEquals(3L, c.getMethod("bound", long.class, double.class, String.class).invoke(sample, 1L, 2.5, "x"));
        assertEquals(2, codes.size());
        assertOp(codes.get(1), codes.get(0)[0], QvHooks.BIND_EXIT);
        assertEquals(QvHooks.BIND_ENTER, codes.get(0)[1]);

        codes.clear();
        values.clear();
        assertEquals(6, c.getMethod("unannotated", int.class).invoke(sample, 3));
        assertEquals(0, codes.size(), "nothing for an unannotated method");

        Executor e = Runnable::run;
        c.getMethod("assign", Executor.class).invoke(sample, e);
        assertEquals(2, codes.size(), "the two annotated fields");
        for (int i = 0; i < 2; i++) {
            assertEquals(QvHooks.FIELD_SET, codes.get(i)[1]);
            assertSame(e, values.get(i), "the value being stored");
        }
        assertTrue(codes.get(0)[0] != codes.get(1)[0], "each field has its own id");
    }

    @Test
    void anExceptionInTheHandlerNeverReachesTheApplication() throws Exception {
        Class<?> c = define(transformed(AnnotatedSample.class, TEMPLATE_HOOKS));
        QvHooks.annotations = (value, code) -> {
            throw new IllegalStateException("a broken handler");
        };
        assertEquals(8, c.getMethod("placed", int.class).invoke(c.getConstructor().newInstance(), 7));
    }

    private static void assertOp(int[] code, int id, int op) {
        assertEquals(id, code[0], "annotation id");
        assertEquals(op, code[1], "op");
    }

    /** The handler catches everything, calls the exit hook and rethrows. */
    private static void assertCatchAllRethrows(MethodNode m, String exitHook) {
        assertEquals(1, m.tryCatchBlocks.size(), m.name);
        TryCatchBlockNode h = m.tryCatchBlocks.get(0);
        assertNull(h.type, "catch-all");
        List<AbstractInsnNode> code = Bytecode.code(m);
        AbstractInsnNode last = code.get(code.size() - 1);
        assertEquals(Opcodes.ATHROW, last.getOpcode());
        assertTrue(code.get(code.size() - 2) instanceof org.objectweb.asm.tree.MethodInsnNode i && i.name.equals(exitHook), m.name);
    }

    /** Defines the rewritten class in a loader of its own, which resolves everything else through the test's. */
    private static Class<?> define(byte[] bytes) {
        return new ClassLoader(AnnotationTransformerTest.class.getClassLoader()) {
            Class<?> define() {
                return defineClass(null, bytes, 0, bytes.length);
            }
        }.define();
    }

    @Test
    void theApisAndTheJdksOwnClassesAreNeverParsedEvenWhenTheyNameTheAnnotations() throws Exception {
        byte[] annotated = Bytecode.classBytes(SAMPLE);
        AnnotationTransformer t = new AnnotationTransformer(TEMPLATE_HOOKS);
        ClassLoader app = ClassLoader.getSystemClassLoader();
        assertNotNull(t.transform(app, "com/acme/Sample", null, null, annotated), "an application class with the annotations is instrumented");
        for (String name : new String[] {"io/qv4j/api/Scope", "io/qv4j/split/Pieces", "io/qv4j/topology/CpuSet", "io/qv4j/partition/Partition",
            "javax/swing/JFrame", "jdk/internal/Foo"}) {
            assertNull(t.transform(app, name, null, null, annotated), name);
        }
    }
}
