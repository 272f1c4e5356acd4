package io.qv4j.agent.boot;

import java.util.function.ObjIntConsumer;

/**
 * The boot part: the class instrumented JDK code calls. It is never loaded under this name: the
 * agent renames its bytes to {@code java.util.concurrent.QvHooks} and defines it in the boot
 * loader, inside {@code java.util.concurrent} ({@link io.qv4j.agent.inst.Boot}). So it may use JDK
 * types only. Its state is one handler set by the agent; nothing thrown by it reaches JDK code.
 */
public final class QvHooks {

    // The names of the hook methods, as the transformers emit them. Compile-time constants: a
    // class that uses them does not load this class under its template name.

    /** {@link #poolCreated(Object)}, descriptor {@link #OBJECT_HOOK}. */
    public static final String POOL_CREATED_HOOK = "poolCreated";
    /** {@link #workerStart(Object)}, descriptor {@link #OBJECT_HOOK}. */
    public static final String WORKER_START_HOOK = "workerStart";
    /** {@link #workerExit(Object)}, descriptor {@link #OBJECT_HOOK}. */
    public static final String WORKER_EXIT_HOOK = "workerExit";
    /** {@link #getTask(Object)}, descriptor {@link #OBJECT_HOOK}. */
    public static final String GET_TASK_HOOK = "getTask";
    /** {@link #fjStart(Object)}, descriptor {@link #OBJECT_HOOK}. */
    public static final String FJ_START_HOOK = "fjStart";
    /** {@link #fjExit(Object)}, descriptor {@link #OBJECT_HOOK}. */
    public static final String FJ_EXIT_HOOK = "fjExit";
    /** {@link #fjTask(Object)}, descriptor {@link #OBJECT_HOOK}. */
    public static final String FJ_TASK_HOOK = "fjTask";
    /** {@link #threadStart(Object)}, descriptor {@link #OBJECT_HOOK}. */
    public static final String THREAD_START_HOOK = "threadStart";
    /** {@link #threadExit(Object)}, descriptor {@link #OBJECT_HOOK}. */
    public static final String THREAD_EXIT_HOOK = "threadExit";
    /** {@link #placementEnter(int)}, descriptor {@link #ID_HOOK}. */
    public static final String PLACEMENT_ENTER_HOOK = "placementEnter";
    /** {@link #placementExit(int)}, descriptor {@link #ID_HOOK}. */
    public static final String PLACEMENT_EXIT_HOOK = "placementExit";
    /** {@link #bindEnter(int)}, descriptor {@link #ID_HOOK}. */
    public static final String BIND_ENTER_HOOK = "bindEnter";
    /** {@link #bindExit(int)}, descriptor {@link #ID_HOOK}. */
    public static final String BIND_EXIT_HOOK = "bindExit";
    /** {@link #fieldSet(Object, int)}, descriptor {@link #VALUE_ID_HOOK}. */
    public static final String FIELD_SET_HOOK = "fieldSet";

    /** Descriptor of the pool and worker hooks: {@code static void (Object)}. */
    public static final String OBJECT_HOOK = "(Ljava/lang/Object;)V";
    /** Descriptor of the annotation enter/exit hooks: {@code static void (int id)}. */
    public static final String ID_HOOK = "(I)V";
    /** Descriptor of the field hook: {@code static void (Object value, int id)}. */
    public static final String VALUE_ID_HOOK = "(Ljava/lang/Object;I)V";

    // What the pool and worker hooks pass to the handler as its int argument.

    public static final int POOL_CREATED = 0;
    public static final int WORKER_START = 1;
    public static final int WORKER_EXIT = 2;
    public static final int FJ_START = 3;
    public static final int FJ_EXIT = 4;
    public static final int TASK = 5;
    public static final int THREAD_START = 6;
    public static final int THREAD_EXIT = 7;
    public static final int FJ_TASK = 8;

    // What the annotation hooks pass to their handler: {@code id << OP_SHIFT | op}.

    /** Bits of the op in an annotation code; the annotation's id is above them. */
    public static final int OP_SHIFT = 3;
    /** Mask of the op in an annotation code. */
    public static final int OP_MASK = (1 << OP_SHIFT) - 1;
    public static final int PLACEMENT_ENTER = 0;
    public static final int PLACEMENT_EXIT = 1;
    public static final int BIND_ENTER = 2;
    public static final int BIND_EXIT = 3;
    public static final int FIELD_SET = 4;

    /** Set by the agent; null = hooks do nothing. */
    public static volatile ObjIntConsumer<Object> handler;
    /** Set by the agent for {@code @Placement}/{@code @Bind}: (value, id << OP_SHIFT | op); null = do nothing. */
    public static volatile ObjIntConsumer<Object> annotations;
    /** True while some running worker may still need placing (after attach): checked once per task. */
    public static volatile boolean catchUp;

    private QvHooks() {
    }

    /** ThreadPoolExecutor and ForkJoinPool constructors, at exit. */
    public static void poolCreated(Object pool) {
        call(pool, POOL_CREATED);
    }

    /** ThreadPoolExecutor.runWorker, at enter, on the worker. */
    public static void workerStart(Object pool) {
        call(pool, WORKER_START);
    }

    /** ThreadPoolExecutor.processWorkerExit, at enter, on the dying worker. */
    public static void workerExit(Object pool) {
        call(pool, WORKER_EXIT);
    }

    /** ForkJoinWorkerThread.run, at enter. */
    public static void fjStart(Object thread) {
        call(thread, FJ_START);
    }

    /** ForkJoinWorkerThread.run, at exit, normal or by an exception. */
    public static void fjExit(Object thread) {
        call(thread, FJ_EXIT);
    }

    /**
     * A platform thread starts: called by JVMTI's ThreadStart event through the JNI library, or at
     * the entry of Thread.run; only when the thread runs itself (not a direct call of run() on another thread).
     */
    public static void threadStart(Object thread) {
        if (thread == Thread.currentThread()) call(thread, THREAD_START);
    }

    /** The thread ends (JVMTI's ThreadEnd event), or Thread.run returns or throws; likewise. */
    public static void threadExit(Object thread) {
        if (thread == Thread.currentThread()) call(thread, THREAD_EXIT);
    }

    /** ThreadPoolExecutor.getTask, at enter: one volatile read per task. */
    public static void getTask(Object pool) {
        if (catchUp) call(pool, TASK);
    }

    /** ForkJoinPool.WorkQueue.topLevelExec, at enter, on the worker about to run a task it took: one volatile read per such task. */
    public static void fjTask(Object queue) {
        if (catchUp) call(queue, FJ_TASK);
    }

    /** Entry of a {@code @Placement} method (or a method of a {@code @Placement} class). */
    public static void placementEnter(int id) {
        annotation(null, id << OP_SHIFT | PLACEMENT_ENTER);
    }

    /** Exit (normal or exceptional) of a {@code @Placement} method. */
    public static void placementExit(int id) {
        annotation(null, id << OP_SHIFT | PLACEMENT_EXIT);
    }

    /** Entry of a {@code @Bind} method. */
    public static void bindEnter(int id) {
        annotation(null, id << OP_SHIFT | BIND_ENTER);
    }

    /** Exit of a {@code @Bind} method. */
    public static void bindExit(int id) {
        annotation(null, id << OP_SHIFT | BIND_EXIT);
    }

    /** A value is about to be stored into a {@code @Placement} field. */
    public static void fieldSet(Object value, int id) {
        annotation(value, id << OP_SHIFT | FIELD_SET);
    }

    private static void annotation(Object o, int code) {
        try {
            ObjIntConsumer<Object> h = annotations;
            if (h != null) h.accept(o, code);
        } catch (Throwable ignored) {
            // never into application code
        }
    }

    private static void call(Object o, int kind) {
        try {
            ObjIntConsumer<Object> h = handler;
            if (h != null) h.accept(o, kind);
        } catch (Throwable ignored) {
            // never into JDK or application code
        }
    }
}
