package io.qv4j.agent.inst;

import io.qv4j.agent.boot.QvHooks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TryCatchBlockNode;
import org.objectweb.asm.tree.VarInsnNode;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hook transformer applied to the running JDK's own ThreadPoolExecutor, ForkJoinPool and
 * ForkJoinWorkerThread: the result passes ASM's verifier, and the hooks sit exactly where the
 * agent needs them and nowhere else.
 */
class HookTransformerTest {

    private static final String HOOKS = Boot.HOOKS.replace('.', '/');
    private static final String OBJ = QvHooks.OBJECT_HOOK;

    private static ClassNode transformed(String internalName) throws Exception {
        HookTransformer t = new HookTransformer(HOOKS);
        byte[] out = t.instrument(internalName, Bytecode.classBytes(internalName));
        Bytecode.assertVerifies(out, ClassLoader.getSystemClassLoader());
        return Bytecode.tree(out);
    }

    @ParameterizedTest
    @ValueSource(strings = {HookTransformer.TPE, HookTransformer.FJP, HookTransformer.FJWT, HookTransformer.FJWQ, HookTransformer.THREAD})
    void theUntransformedJdkClassVerifies(String internalName) throws Exception {
        // the baseline: a verifier report on the transformed class is then the transformer's doing
        Bytecode.assertVerifies(Bytecode.classBytes(internalName), ClassLoader.getSystemClassLoader());
    }

    @Test
    void threadPoolExecutorGetsCreationStartExitAndCatchUpHooks() throws Exception {
        ClassNode c = transformed(HookTransformer.TPE);
        int constructors = 0;
        for (MethodNode m : c.methods) {
            List<String> calls = Bytecode.callsTo(m, HOOKS);
            switch (m.name) {
                case "<init>" -> {
                    constructors++;
                    int returns = Bytecode.count(m, Opcodes.RETURN);
                    assertTrue(returns > 0, m.desc);
                    assertEquals(returns, calls.size(), m.desc);
                    for (String call : calls) assertEquals(QvHooks.POOL_CREATED_HOOK + OBJ, call);
                    assertHookBeforeEachReturn(m, QvHooks.POOL_CREATED_HOOK);
                }
                case "runWorker" -> assertEntryHookOnly(m, calls, QvHooks.WORKER_START_HOOK);
                case "processWorkerExit" -> assertEntryHookOnly(m, calls, QvHooks.WORKER_EXIT_HOOK);
                case "getTask" -> assertEntryHookOnly(m, calls, QvHooks.GET_TASK_HOOK);
                default -> assertEquals(List.of(), calls, "no hook in " + m.name + m.desc);
            }
        }
        assertEquals(4, constructors, "ThreadPoolExecutor's public constructors");
    }

    @Test
    void forkJoinPoolGetsCreationHooksOnlyAndNoneInItsInternals() throws Exception {
        int hooked = hookedOnly(HookTransformer.FJP, "<init>", (m, calls) -> {
            assertHookBeforeEachReturn(m, QvHooks.POOL_CREATED_HOOK);
            for (String call : calls) assertEquals(QvHooks.POOL_CREATED_HOOK + OBJ, call);
        });
        assertTrue(hooked >= 2, "ForkJoinPool constructors hooked: " + hooked);
    }

    @Test
    void forkJoinWorkerThreadRunGetsStartAndExitHooksTheExitAlsoWhenItThrows() throws Exception {
        ClassNode c = transformed(HookTransformer.FJWT);
        boolean run = false;
        for (MethodNode m : c.methods) {
            List<String> calls = Bytecode.callsTo(m, HOOKS);
            if (m.name.equals("run") && m.desc.equals("()V")) {
                run = true;
                assertEntryHook(m, QvHooks.FJ_START_HOOK);
                assertHookBeforeEachReturn(m, QvHooks.FJ_EXIT_HOOK);
                assertExitHookWhenAnExceptionLeaves(m, QvHooks.FJ_EXIT_HOOK);
                assertEquals(2 + Bytecode.count(m, Opcodes.RETURN), calls.size(), calls.toString());
            } else {
                assertEquals(List.of(), calls, "no hook in " + m.name + m.desc + " (onStart, onTermination included)");
            }
        }
        assertTrue(run, "ForkJoinWorkerThread.run() found");
    }

    @Test
    void aForkJoinWorkQueueGetsTheTaskHookAtTheEntryOfTopLevelExecOnly() throws Exception {
        int hooked = hookedOnly(HookTransformer.FJWQ, "topLevelExec", (m, calls) -> assertEntryHookOnly(m, calls, QvHooks.FJ_TASK_HOOK));
        assertEquals(1, hooked, "WorkQueue.topLevelExec found (JDK 17 and 25 alike)");
    }

    /** Checks each method named {@code method} of the transformed class with {@code check}, and that no other method calls a hook; how many it checked. */
    private static int hookedOnly(String internalName, String method, java.util.function.BiConsumer<MethodNode, List<String>> check) throws Exception {
        int hooked = 0;
        for (MethodNode m : transformed(internalName).methods) {
            List<String> calls = Bytecode.callsTo(m, HOOKS);
            if (m.name.equals(method)) {
                check.accept(m, calls);
                hooked++;
            } else {
                assertEquals(List.of(), calls, "no hook in " + m.name + m.desc);
            }
        }
        return hooked;
    }

    @Test
    void recordsWhatItInsertedPerClass() throws Exception {
        HookTransformer t = new HookTransformer(HOOKS);
        for (String name : HookTransformer.TARGETS) t.instrument(name, Bytecode.classBytes(name));
        assertEquals(Set.of("<init>", "runWorker", "processWorkerExit", "getTask"),
                Set.of(t.done().get("java.util.concurrent.ThreadPoolExecutor").split(" ")), t.done().toString());
        assertEquals("<init>", t.done().get("java.util.concurrent.ForkJoinPool"));
        assertEquals("run", t.done().get("java.util.concurrent.ForkJoinWorkerThread"));
        assertEquals("topLevelExec", t.done().get("java.util.concurrent.ForkJoinPool$WorkQueue"));
        assertEquals("run", t.done().get("java.lang.Thread"));
    }

    @Test
    void threadRunGetsAStartHookAtEntryAndAnExitHookBeforeItsReturnAndWhenItThrowsAndNothingElse() throws Exception {
        ClassNode c = transformed(HookTransformer.THREAD);
        boolean run = false;
        for (MethodNode m : c.methods) {
            List<String> calls = Bytecode.callsTo(m, HOOKS);
            if (m.name.equals("run") && m.desc.equals("()V")) {
                run = true;
                assertEquals(QvHooks.THREAD_START_HOOK + OBJ, calls.get(0), "entry first");
                assertHookBeforeEachReturn(m, QvHooks.THREAD_EXIT_HOOK);
                assertExitHookWhenAnExceptionLeaves(m, QvHooks.THREAD_EXIT_HOOK);
                assertEquals(2 + Bytecode.count(m, Opcodes.RETURN), calls.size(), calls.toString());
            } else {
                assertEquals(List.of(), calls, "no hook in " + m.name + m.desc);
            }
        }
        assertTrue(run, "Thread.run() found");
    }

    @Test
    void leavesOtherClassesAndOtherLoadersAlone() throws Exception {
        HookTransformer t = new HookTransformer(HOOKS);
        byte[] tpe = Bytecode.classBytes(HookTransformer.TPE);
        assertNull(t.transform(null, "java/util/concurrent/ScheduledThreadPoolExecutor",
                null, null, Bytecode.classBytes("java/util/concurrent/ScheduledThreadPoolExecutor")));
        assertNull(t.transform(getClass().getClassLoader(), HookTransformer.TPE, null, null, tpe), "an application copy of the name");
        assertTrue(t.done().isEmpty(), t.done().toString());
        assertTrue(t.transform(null, HookTransformer.TPE, null, null, tpe) != null);
    }

    private static void assertEntryHookOnly(MethodNode m, List<String> calls, String hook) {
        assertEquals(List.of(hook + OBJ), calls, m.name + m.desc);
        assertEntryHook(m, hook);
    }

    /** The method starts with {@code ALOAD 0; INVOKESTATIC hook(Object)}. */
    private static void assertEntryHook(MethodNode m, String hook) {
        List<AbstractInsnNode> code = Bytecode.code(m);
        assertTrue(code.get(0) instanceof VarInsnNode v && v.getOpcode() == Opcodes.ALOAD && v.var == 0, m.name + ": ALOAD 0 first");
        assertTrue(code.get(1) instanceof MethodInsnNode c && c.owner.equals(HOOKS) && c.name.equals(hook), m.name + ": " + hook + " at entry");
    }

    /**
     * The last entry of the exception table catches any {@code Throwable} over the whole body after
     * the entry hook, and its handler is {@code ALOAD 0; INVOKESTATIC hook(Object); ATHROW}.
     */
    private static void assertExitHookWhenAnExceptionLeaves(MethodNode m, String hook) {
        TryCatchBlockNode last = m.tryCatchBlocks.get(m.tryCatchBlocks.size() - 1);
        assertEquals("java/lang/Throwable", last.type, m.name + ": catches any Throwable");
        List<AbstractInsnNode> code = Bytecode.code(m);
        assertEquals(2, code.indexOf(next(last.start)), m.name + ": covers the body from just after the entry hook");
        int h = code.indexOf(next(last.handler));
        assertTrue(code.get(h) instanceof VarInsnNode v && v.getOpcode() == Opcodes.ALOAD && v.var == 0, m.name + ": ALOAD 0 in the handler");
        assertTrue(code.get(h + 1) instanceof MethodInsnNode c && c.owner.equals(HOOKS) && c.name.equals(hook), m.name + ": " + hook + " in the handler");
        assertEquals(Opcodes.ATHROW, code.get(h + 2).getOpcode(), m.name + ": thrown again");
        assertEquals(code.size(), h + 3, m.name + ": the handler ends the method");
    }

    /** The first instruction at or after {@code n} (labels, line numbers and frames skipped). */
    private static AbstractInsnNode next(AbstractInsnNode n) {
        while (n != null && n.getOpcode() < 0) n = n.getNext();
        return n;
    }

    /** Every {@code RETURN} is preceded by {@code ALOAD 0; INVOKESTATIC hook(Object)}. */
    private static void assertHookBeforeEachReturn(MethodNode m, String hook) {
        List<AbstractInsnNode> code = Bytecode.code(m);
        for (int i = 0; i < code.size(); i++) {
            if (code.get(i).getOpcode() != Opcodes.RETURN) continue;
            assertTrue(i >= 2 && code.get(i - 1) instanceof MethodInsnNode c && c.owner.equals(HOOKS) && c.name.equals(hook)
                    && code.get(i - 2).getOpcode() == Opcodes.ALOAD, m.name + m.desc + ": " + hook + " before the return at " + i);
        }
    }
}
