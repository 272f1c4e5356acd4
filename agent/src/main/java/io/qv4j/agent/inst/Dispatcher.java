package io.qv4j.agent.inst;

import io.qv4j.agent.boot.QvHooks;
import io.qv4j.agent.log.Log;
import io.qv4j.agent.place.Placer;

import java.util.concurrent.ForkJoinWorkerThread;
import java.util.function.ObjIntConsumer;

/** The handler the boot part calls: turns hook events into placer calls; nothing escapes. */
public final class Dispatcher implements ObjIntConsumer<Object> {

    private final Placer placer;
    private final boolean attached;
    private volatile Class<?> hooks;
    private volatile JitDirective jit;

    public Dispatcher(Placer placer, boolean attached) {
        this.placer = placer;
        this.attached = attached;
        placer.onPending(new Runnable() {
            @Override
            public void run() {
                setCatchUp(true);
            }
        });
    }

    public void hooks(Class<?> c) {
        hooks = c;
    }

    /** What counts the thread starts, to keep the agent's code off C2 once they are many. */
    public void jit(JitDirective j) {
        jit = j;
    }

    private void threadStarted() {
        JitDirective j = jit;
        if (j != null) j.threadStarted();
    }

    private void setCatchUp(boolean on) {
        try {
            Class<?> h = hooks;
            if (h != null) Boot.catchUp(h, on);
        } catch (Throwable ignored) {
            // the flag only speeds things up
        }
    }

    @Override
    public void accept(Object o, int kind) {
        try {
            switch (kind) {
                case QvHooks.POOL_CREATED -> placer.poolCreated(o);
                case QvHooks.WORKER_START -> {
                    threadStarted();
                    placer.workerStart(o, Thread.currentThread());
                }
                case QvHooks.WORKER_EXIT -> placer.workerExit(o, Thread.currentThread());
                // The worker is the current thread (the hook runs in its run()). Not passing it as the
                // ForkJoinWorkerThread it is keeps the verifier from loading that class, one of the
                // hook targets, before the hooks are installed: it would then have to be redefined.
                case QvHooks.FJ_START -> {
                    threadStarted();
                    if (o instanceof ForkJoinWorkerThread w) placer.workerStart(w.getPool(), Thread.currentThread());
                }
                case QvHooks.FJ_EXIT -> {
                    if (o instanceof ForkJoinWorkerThread w) placer.workerExit(w.getPool(), Thread.currentThread());
                }
                case QvHooks.FJ_TASK -> {
                    // the registry's lock only after a move: fork/join tasks are many and short
                    if (placer.rebindIfMoved(Thread.currentThread()) && !attached && !placer.anyPending()) setCatchUp(false);
                }
                case QvHooks.THREAD_START -> {
                    threadStarted();
                    placer.threadStart(Thread.currentThread());
                }
                case QvHooks.THREAD_EXIT -> placer.threadExit(Thread.currentThread());
                case QvHooks.TASK -> {
                    placer.catchUp(o, Thread.currentThread(), attached);
                    if (!attached && !placer.anyPending()) setCatchUp(false);
                }
                default -> {
                }
            }
        } catch (Throwable t) {
            try {
                Log.once("hook:" + t.getClass().getName(), "internal error in a hook (" + t + "); the thread runs unpinned");
            } catch (Throwable ignored) {
                // nothing may escape
            }
        }
    }
}
