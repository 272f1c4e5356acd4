package io.qv4j.agent.place;

import io.qv4j.topology.CpuSet;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every pool the hooks have seen and every worker thread, under one lock (events are rare: pool
 * creation, worker start and exit). Pools are held weakly; per-thread state lives in a map keyed
 * by thread (JDK 25 common-pool workers clear their ThreadLocals).
 */
public final class PoolRegistry {

    /** Shut-down pools kept for the report. */
    static final int DEAD_POOLS_KEPT = 64;
    /** Exited workers kept per pool for the report. */
    static final int EXITED_KEPT = 256;

    final Object lock = new Object();
    private final List<Pool> pools = new ArrayList<>(); // creation order, for planning and the report
    // by pool identity; weak, so a pool the application drops can be collected (pools do not
    // override equals/hashCode). A Pool holds its pool only through a WeakReference.
    private final Map<Object, Pool> byPool = new WeakHashMap<>();
    private final Map<Thread, Worker> workers = new IdentityHashMap<>();
    /** Workers that started before the environment was ready (or before an attach): placed at their next task. */
    private final Map<Thread, Object> pending = new IdentityHashMap<>();
    /** Workers a rebalance moved: their new cpuset, applied on their own thread at their next task. */
    final Map<Thread, CpuSet> moves = new ConcurrentHashMap<>();
    private int pruneAt = 2 * DEAD_POOLS_KEPT;
    private int nextId = 1;

    /** Under the lock. */
    Pool find(Object pool) {
        return byPool.get(pool);
    }

    /** The pool's record, made now (of unknown origin: it was made before the agent) if there is none. Under the lock. */
    Pool register(Object pool) {
        Pool p = find(pool);
        return p != null ? p : add(pool, Eligibility.Origin.UNKNOWN, Eligibility.Creator.UNKNOWN_BEFORE_AGENT);
    }

    /**
     * Records a new pool. Applications that make short-lived pools would otherwise grow the
     * registry without end: pools that are gone are dropped, oldest first, keeping the last
     * {@value #DEAD_POOLS_KEPT} for the report. Under the lock; amortized O(1).
     */
    Pool add(Object pool, Eligibility.Origin origin, Eligibility.Creator creator) {
        return add(new Pool(nextId++, pool, origin, creator), pool);
    }

    /** Records a group of plain threads under its key. Under the lock. */
    Pool addGroup(GroupKey key, String type) {
        return add(new Pool(nextId++, key, Eligibility.Origin.APPLICATION, Eligibility.Creator.UNKNOWN, type), key);
    }

    private Pool add(Pool p, Object pool) {
        pools.add(p);
        byPool.put(pool, p);
        if (pools.size() > pruneAt) {
            int drop = -DEAD_POOLS_KEPT;
            for (Pool x : pools) if (x.gone()) drop++;
            for (Iterator<Pool> it = pools.iterator(); it.hasNext() && drop > 0; ) {
                if (it.next().gone()) {
                    it.remove();
                    drop--;
                }
            }
            pruneAt = Math.max(2 * DEAD_POOLS_KEPT, 2 * pools.size());
        }
        return p;
    }

    /** The record of the group of plain threads {@code g}, made now if it is new. Under the lock. */
    Pool group(GroupKey key, ThreadSet g) {
        Pool p = find(key);
        if (p != null) return p;
        p = addGroup(key, g.type());
        p.decided = true;
        p.pinned = true;
        p.name = g.name();
        p.tasks = g.tasks();
        p.grows = g.tasks() == 0;
        p.rule = g.rule();
        p.policy = g.policy();
        p.reason = g.reason();
        return p;
    }

    /** Under the lock. */
    boolean known(Thread t) {
        return workers.containsKey(t);
    }

    /** Under the lock. */
    Worker worker(Thread t) {
        return workers.get(t);
    }

    /** A new worker of {@code p} on thread {@code t}. Under the lock. */
    Worker addWorker(Pool p, Thread t) {
        Worker w = new Worker(t.getName(), p);
        p.workers.add(w);
        p.started++;
        workers.put(t, w);
        return w;
    }

    /** The worker leaves: its slot is free, its record kept (a bounded history). Under the lock. */
    Worker removeWorker(Thread t) {
        pending.remove(t);
        moves.remove(t);
        Worker w = workers.remove(t);
        if (w == null) return null;
        w.exited = true;
        Pool p = w.pool;
        if (p.workers.size() > EXITED_KEPT) p.workers.removeIf(x -> x.exited);
        if (w.slot >= 0 && p.slots != null) p.slots.release(w.slot, t);
        return w;
    }

    /** Slots whose owner died without an exit event (an exception out of a worker's run): freed. Under the lock. */
    int reclaimDead(Pool p) {
        List<Thread> dead = new ArrayList<>();
        for (Map.Entry<Thread, Worker> x : workers.entrySet()) {
            if (x.getValue().pool == p && !x.getKey().isAlive()) dead.add(x.getKey());
        }
        for (Thread d : dead) removeWorker(d);
        return dead.size();
    }

    /** Under the lock. */
    void addPending(Thread t, Object pool) {
        pending.put(t, pool);
    }

    /** Under the lock: true if {@code t} was pending. */
    boolean removePending(Thread t) {
        return pending.remove(t) != null;
    }

    boolean anyPending() {
        synchronized (lock) {
            return !pending.isEmpty() || !moves.isEmpty();
        }
    }

    /** The pools in creation order: a copy, taken under the lock. */
    public List<Pool> pools() {
        synchronized (lock) {
            return new ArrayList<>(pools);
        }
    }

    /** Live workers by thread, under the lock. */
    Map<Thread, Worker> liveWorkers() {
        return workers;
    }

    /** How the JVM scope followed a change of the process's allowed set ({@link AllowedSet}), or null. */
    public String allowedChange() {
        return allowedChange;
    }

    volatile String allowedChange;

    /** Runs {@code r} under the lock: a consistent view for the report. */
    public void read(Runnable r) {
        synchronized (lock) {
            r.run();
        }
    }
}
