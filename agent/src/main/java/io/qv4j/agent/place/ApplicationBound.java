package io.qv4j.agent.place;

import io.qv4j.agent.bind.Binder;
import io.qv4j.agent.config.Options;
import io.qv4j.agent.log.Log;
import io.qv4j.topology.CpuSet;

/**
 * Threads the application bound itself (its thread factory, say) are left where it put them: a
 * starting worker whose mask is already narrower than its pool's universe, and that the
 * application changed since the thread started (its mask at its thread-start event, before any
 * application code ran on it), keeps it; the report and one line say so. Where that start mask is
 * not known (a worker that started before the agent; without the JNI library and its thread
 * events), a mask qv4j gave some other thread counts as inherited (threads inherit their
 * creator's mask: fork/join workers and Netty's event loops start each other), so the
 * application's binding to exactly such a mask is not told apart there. A thread qv4j does not
 * place that inherited such a mask is given the JVM scope back ({@link #unconfine}).
 */
final class ApplicationBound {

    private ApplicationBound() {
    }

    /** True (and the worker recorded where it is) when the calling thread, whose mask is {@code now}, was bound by the application. */
    static boolean leftAlone(PoolRegistry registry, Worker w, Env e, PlacementEvents events, CpuSet now) {
        CpuSet universe = PoolPlanner.scopeOf(w.pool, e);
        if (now == null || now.equals(universe) || !universe.containsAll(now) || now.equals(w.cpuset)) return false;
        Boolean kept = e.binder().keptStartMask();
        synchronized (registry.lock) {
            // the mask it started with is inherited, not chosen; not knowing it, a mask qv4j gave another worker is taken as inherited
            if (kept != null ? kept : givenByQv(registry, now, w)) return false;
            if (w.slot >= 0) w.pool.slots.release(w.slot, Thread.currentThread());
            w.slot = -1;
            w.appBound = true;
            w.cpuset = now;
            w.topology = e.topology();
        }
        Log.once("appbound:" + w.pool.name, "pool " + w.pool.name + ": thread \"" + w.name + "\" was already bound to pus " + now
                + " by the application: left there");
        events.refused(w.pool, w, "already bound by the application");
        return true;
    }

    /**
     * Whether {@code mask} is one qv4j gave: the piece of a live worker other than {@code except},
     * or a pool's scope or parent piece. A thread with such a mask inherited it from a thread qv4j
     * placed. Under the registry's lock.
     */
    static boolean givenByQv(PoolRegistry registry, CpuSet mask, Worker except) {
        for (Worker o : registry.liveWorkers().values()) if (o != except && !o.appBound && mask.equals(o.cpuset)) return true;
        for (Pool p : registry.current()) if (mask.equals(p.scope) || mask.equals(p.parent)) return true;
        for (Pool p : registry.ended()) if (mask.equals(p.scope) || mask.equals(p.parent)) return true;
        return false;
    }

    /**
     * A thread starting, on itself, before anything else runs on it. One whose mask reaches this
     * JVM's exclusive PUs (made by an exclusive worker, or by a thread that may run there) is kept
     * off them (DESIGN.md §7.2), but for the JVM's own threads under
     * {@code exclusive-vm-threads=share}. Else a thread qv4j does not place (not a pool's worker)
     * must not keep a mask it inherited from one qv4j placed (threads inherit their creator's
     * mask): the common pool's workers, started by a worker pinned to one PU, would all share that
     * PU. It gets the JVM scope (less exclusive PUs), where it runs without the agent. Any other
     * mask (the JVM scope, the application's own choice) is kept. Called only once qv4j has bound
     * some thread (the {@link Placer} checks, one volatile read): before that no thread can have
     * inherited a mask it gave.
     */
    static void unconfine(Placer placer, Thread t, boolean poolWorker) {
        Env e = placer.env();
        if (e == null || !e.live() || !e.binder().binds()) return;
        if (poolWorker && e.exclusive().isEmpty()) return; // a pool's worker is the pool hooks' to place: no mask read on its start
        CpuSet now = Binder.currentMask();
        if (now == null) return;
        if (now.intersects(e.exclusive()) && !(placer.options().vmThreads() == Options.VmThreads.SHARE && ExclusiveRoom.vmThreadName(t.getName()))) {
            CpuSet to = now.andNot(e.exclusive());
            boolean bound = e.binder().bind(to.isEmpty() ? e.rest() : to);
            placer.memory().reset(e);
            if (Log.isVerbose()) Log.debug("thread \"" + t.getName() + "\" started on exclusive pus " + now.and(e.exclusive()) + ": kept off them" + e.binder().outcome(bound));
            return;
        }
        if (poolWorker || now.equals(e.jvm())) return; // a pool's worker is the pool hooks' to place
        PoolRegistry registry = placer.registry();
        synchronized (registry.lock) {
            if (!givenByQv(registry, now, null)) return;
        }
        e = AllowedSet.check(placer, e, now); // taskset may have narrowed the process since: never widen past it
        if (now.equals(e.rest())) return;
        boolean bound = e.binder().bind(e.rest());
        placer.memory().reset(e);
        if (Log.isVerbose()) {
            Log.debug("thread \"" + t.getName() + "\" inherited pus " + now + " from a thread qv4j placed: back to the JVM scope"
                    + e.binder().outcome(bound));
        }
    }
}
