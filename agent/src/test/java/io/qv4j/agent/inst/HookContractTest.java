package io.qv4j.agent.inst;

import io.qv4j.agent.boot.QvHooks;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.Type;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The transformers insert calls by name and descriptor into JDK and application code; a hook
 * missing from the boot hook class would compile and then fail inside that code. Every hook each
 * transformer can emit must exist on {@link QvHooks}, public static, with exactly that descriptor.
 */
class HookContractTest {

    @Test
    void everyHookTheThreadPoolTransformerEmitsExistsOnTheHookClass() {
        List<HookMethod> hooks = HookTransformer.hooks();
        assertEquals(List.of(QvHooks.POOL_CREATED_HOOK, QvHooks.WORKER_START_HOOK, QvHooks.WORKER_EXIT_HOOK,
                QvHooks.GET_TASK_HOOK, QvHooks.FJ_START_HOOK, QvHooks.FJ_EXIT_HOOK, QvHooks.FJ_TASK_HOOK,
                QvHooks.THREAD_START_HOOK, QvHooks.THREAD_EXIT_HOOK), names(hooks));
        hooks.forEach(HookContractTest::assertOnHookClass);
    }

    @Test
    void everyHookTheAnnotationTransformerEmitsExistsOnTheHookClass() {
        List<HookMethod> hooks = AnnotationTransformer.hooks();
        assertEquals(List.of(QvHooks.PLACEMENT_ENTER_HOOK, QvHooks.PLACEMENT_EXIT_HOOK, QvHooks.BIND_ENTER_HOOK,
                QvHooks.BIND_EXIT_HOOK, QvHooks.FIELD_SET_HOOK), names(hooks));
        hooks.forEach(HookContractTest::assertOnHookClass);
    }

    @Test
    void theCheckFailsForAHookTheClassDoesNotHave() {
        assertThrows(new HookMethod("workerStarted", QvHooks.OBJECT_HOOK));
        assertThrows(new HookMethod(QvHooks.WORKER_START_HOOK, QvHooks.ID_HOOK));
    }

    @Test
    void annotationOpCodesAreDistinctAndFitUnderTheShift() {
        int[] ops = {QvHooks.PLACEMENT_ENTER, QvHooks.PLACEMENT_EXIT, QvHooks.BIND_ENTER, QvHooks.BIND_EXIT, QvHooks.FIELD_SET};
        for (int i = 0; i < ops.length; i++) {
            assertEquals(ops[i], ops[i] & QvHooks.OP_MASK, "op " + ops[i] + " fits in " + QvHooks.OP_SHIFT + " bits");
            for (int j = i + 1; j < ops.length; j++) assertTrue(ops[i] != ops[j], "ops " + i + " and " + j + " differ");
        }
        int code = 12345 << QvHooks.OP_SHIFT | QvHooks.FIELD_SET;
        assertEquals(12345, code >>> QvHooks.OP_SHIFT);
        assertEquals(QvHooks.FIELD_SET, code & QvHooks.OP_MASK);
    }

    @Test
    void hookClassUsesJdkTypesOnly() throws Exception {
        // renamed into java.util.concurrent and defined by the boot loader: nothing else resolves there
        // synthetic members are a coverage tool's, not ours
        for (Method m : QvHooks.class.getDeclaredMethods()) {
            if (m.isSynthetic()) continue;
            for (Class<?> t : m.getParameterTypes()) assertTrue(t.isPrimitive() || t.getName().startsWith("java."), m + ": " + t);
            Class<?> r = m.getReturnType();
            assertTrue(r.isPrimitive() || r.getName().startsWith("java."), m + ": " + r);
        }
        for (var f : QvHooks.class.getDeclaredFields()) {
            if (f.isSynthetic()) continue;
            Class<?> t = f.getType();
            assertTrue(t.isPrimitive() || t.getName().startsWith("java."), f + ": " + t);
        }
        assertEquals(Object.class, QvHooks.class.getSuperclass());
        assertEquals(0, QvHooks.class.getInterfaces().length);
    }

    private static List<String> names(List<HookMethod> hooks) {
        List<String> out = new ArrayList<>();
        for (HookMethod h : hooks) out.add(h.name());
        return out;
    }

    private static void assertThrows(HookMethod h) {
        try {
            assertOnHookClass(h);
        } catch (AssertionError expected) {
            return;
        }
        fail("no failure for " + h);
    }

    static void assertOnHookClass(HookMethod h) {
        Method found = null;
        for (Method m : QvHooks.class.getDeclaredMethods()) {
            if (m.getName().equals(h.name()) && Type.getMethodDescriptor(m).equals(h.descriptor())) found = m;
        }
        if (found == null) fail("QvHooks has no method " + h.name() + h.descriptor());
        int mod = found.getModifiers();
        assertTrue(Modifier.isPublic(mod) && Modifier.isStatic(mod), found + " is public static");
        assertFalse(found.isSynthetic(), found.toString());
    }
}
