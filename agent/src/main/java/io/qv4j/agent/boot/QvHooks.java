package io.qv4j.agent.boot;

import java.util.function.ObjIntConsumer;

/**
 * The boot part: the class instrumented JDK code calls. It is never loaded under this name: the
 * agent renames its bytes to {@code java.util.concurrent.QvHooks} and defines it in the boot
 * loader, inside {@code java.util.concurrent} ({@link io.qv4j.agent.inst.Boot}). So it may use JDK
 * types only. Its state is one handler set by the agent; nothing thrown by it reaches JDK code.
 */
public final class QvHooks {

    public static final int POOL_CREATED = 0;
    public static final int WORKER_START = 1;
    public static final int WORKER_EXIT = 2;
    public static final int FJ_START = 3;
    public static final int FJ_EXIT = 4;
    public static final int TASK = 5;

    /** Set by the agent; null = hooks do nothing. */
    public static volatile ObjIntConsumer<Object> handler;
    /** Set by the agent for {@code @Placement}/{@code @Bind}: (value, id << 3 | op); null = do nothing. */
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

    /** ForkJoinWorkerThread.run, at exit. */
    public static void fjExit(Object thread) {
        call(thread, FJ_EXIT);
    }

    /** ThreadPoolExecutor.getTask, at enter: one volatile read per task. */
    public static void getTask(Object pool) {
        if (catchUp) call(pool, TASK);
    }

    /** Entry of a {@code @Placement} method (or a method of a {@code @Placement} class). */
    public static void placementEnter(int id) {
        annotation(null, id << 3);
    }

    /** Exit (normal or exceptional) of a {@code @Placement} method. */
    public static void placementExit(int id) {
        annotation(null, id << 3 | 1);
    }

    /** Entry of a {@code @Bind} method. */
    public static void bindEnter(int id) {
        annotation(null, id << 3 | 2);
    }

    /** Exit of a {@code @Bind} method. */
    public static void bindExit(int id) {
        annotation(null, id << 3 | 3);
    }

    /** A value is about to be stored into a {@code @Placement} field. */
    public static void fieldSet(Object value, int id) {
        annotation(value, id << 3 | 4);
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
