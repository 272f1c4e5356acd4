package io.qv4j.agent.place;

import io.qv4j.agent.log.Log;
import io.qv4j.topology.CpuSet;

import java.util.Map;

/**
 * Groups that grow as their threads appear (DESIGN.md §6.2): families of single-thread scheduled
 * pools, and groups of plain threads of unknown size. Neither knows how many threads it will have,
 * so each is planned for the threads seen so far and planned again for each thread beyond its
 * slots; the threads already placed move at once, by their tid. The {@link Placer} asks it while
 * it places a thread: whether its pool is one of a family, and for a slot when its group is full.
 */
final class GrowingGroups {

    /** The most threads a group of unknown size is planned for; beyond, threads share its scope. */
    private static final int GROUP_LIMIT = 4096;

    private final PoolRegistry registry;
    private final PoolPlanner planner;
    private final ThreadSets threads;

    GrowingGroups(PoolRegistry registry, PoolPlanner planner, ThreadSets threads) {
        this.registry = registry;
        this.planner = planner;
        this.threads = threads;
    }

    /**
     * The family {@code p} belongs to, or null: a pinned application {@code ScheduledThreadPoolExecutor}
     * of one thread that no rule or annotation names, whose thread's name ends in a number, is one
     * of the pools of one thread the same code made (Reactor's {@code parallel-1..N},
     * {@code newSingleThreadScheduledExecutor}s made in a loop with numbered names; a plain pool of
     * one may be resized into a pool, so it is not taken). Such a family is planned as one group, for as many
     * members as have started (the name's number is the slot), so its threads spread over the
     * pieces instead of each taking the first free one. Under the registry's lock.
     */
    Pool family(Pool p, Thread t) {
        if (p.group() || !p.pinned || p.policy != null || p.origin != Eligibility.Origin.APPLICATION || p.creator.key() == null) return null;
        // by name: a JVM that never makes a scheduled pool does not load its class for this
        Object pool = p.ref.get();
        if (pool == null || !pool.getClass().getName().equals("java.util.concurrent.ScheduledThreadPoolExecutor") || Eligibility.tasks(pool) != 1) return null;
        String name = t.getName();
        int d = ThreadSets.trailingDigits(name);
        if (d == name.length() || d == 0) return null;
        String prefix = ThreadSets.prefix(name);
        ThreadSet g = new ThreadSet("family:" + p.creator.key() + ":" + prefix, prefix, p.type, 1, -1, null, null,
                "family of single-thread pools " + prefix + "-N made by " + p.creator.text());
        Pool f = registry.group(threads.key(g), g);
        f.grows = true; // planned for the members seen so far: a family of one claims one piece, as its pool would
        p.reason = "one of the family " + prefix + ", planned as one group";
        return f;
    }

    /**
     * A group of plain threads of unknown size has more threads than its plan has slots: it is
     * planned again for one more (or for the slot the thread's name asks for), as a pool whose size
     * changed, so its threads are dealt over the pieces as its policy deals that many (SPREAD: round
     * robin, counts per piece differing by at most one) and the oversubscription rule sees them all.
     * Threads already placed move at once, bound by their tid (they have no later hook). Returns
     * {@code t}'s slot, or -1. Under the registry's lock.
     */
    int grow(Pool p, Thread t, int ask, Env e, PlacementEvents events) {
        int tasks = Math.max(p.tasks + 1, ask + 1);
        if (tasks > GROUP_LIMIT) return -1;
        planner.resize(p, tasks, e);
        registry.moves.remove(t);
        if (p.slots == null) return -1;
        int slot = p.slots.takeAt(ask, t);
        if (slot < 0) slot = p.slots.take(t);
        for (Map.Entry<Thread, Worker> x : registry.liveWorkers().entrySet()) {
            Worker o = x.getValue();
            CpuSet c = o.pool == p ? registry.moves.remove(x.getKey()) : null;
            if (c == null) continue;
            o.cpuset = c;
            o.topology = e.topology();
            o.rebinds++;
            o.bound = e.binder().bindThread(o.tid, c);
            events.placed(p, o, e.binder().binds());
            if (Log.isVerbose()) Log.debug("pool " + p.name + " grew to " + tasks + " threads: thread \"" + o.name + "\" -> " + o.piece() + e.binder().outcome(o.bound));
        }
        events.planned(p);
        return slot;
    }

    /**
     * {@code w}, on its own thread, has just bound itself to {@code bound}: its group may have grown
     * between its slot and that bind ({@link #grow} moves placed threads by tid), so it binds again
     * where it is now. Takes the registry's lock.
     */
    void bindAgainIfMoved(Worker w, CpuSet bound, Env e) {
        CpuSet c;
        synchronized (registry.lock) {
            c = bound.equals(w.cpuset) ? null : w.cpuset;
        }
        if (c != null) w.bound = e.binder().bind(c);
    }
}
