package io.qv4j.agent.place;

import io.qv4j.topology.CpuSet;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
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

    /** The current pools' list is combed for ended ones once it is twice as long as after the last combing, and at least this long. */
    static final int COMB_AT_LEAST = 16;

    final Object lock = new Object();
    // Planning walks the current pools at every plan: the ended ones the report keeps stay out of
    // that walk (an application that makes pools by the thousand would walk dozens per plan).
    private final List<Pool> current = new ArrayList<>(); // not known to have ended; creation order
    private final ArrayDeque<Pool> ended = new ArrayDeque<>(); // the newest DEAD_POOLS_KEPT that ended
    // by pool identity; weak, so a pool the application drops can be collected (pools do not
    // override equals/hashCode). A Pool holds its pool only through a WeakReference.
    private final Map<Object, Pool> byPool = new WeakHashMap<>();
    private final Map<Thread, Worker> workers = new IdentityHashMap<>();
    /** Workers that started before the environment was ready (or before an attach): placed at their next task. */
    private final Map<Thread, Object> pending = new IdentityHashMap<>();
    /** Workers a rebalance moved: their new cpuset, applied on their own thread at their next task. */
    final Map<Thread, CpuSet> moves = new ConcurrentHashMap<>();
    private int combAt = COMB_AT_LEAST;
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
     * registry without end: pools that are gone leave the current ones, and the report keeps the
     * last {@value #DEAD_POOLS_KEPT} of them. Under the lock; amortized O(1).
     */
    Pool add(Object pool, Eligibility.Origin origin, Eligibility.Creator creator) {
        return add(new Pool(nextId++, pool, origin, creator), pool);
    }

    /** Records a group of plain threads under its key. Under the lock. */
    Pool addGroup(GroupKey key, String type) {
        return add(new Pool(nextId++, key, Eligibility.Origin.APPLICATION, Eligibility.Creator.UNKNOWN, type), key);
    }

    private Pool add(Pool p, Object pool) {
        current.add(p);
        byPool.put(pool, p);
        if (current.size() > combAt) {
            for (Iterator<Pool> it = current.iterator(); it.hasNext(); ) {
                Pool x = it.next();
                if (x.gone()) {
                    it.remove();
                    x.ended = true;
                    ended.addLast(x);
                    if (ended.size() > DEAD_POOLS_KEPT) ended.removeFirst();
                }
            }
            combAt = Math.max(COMB_AT_LEAST, 2 * current.size());
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
        if (p.ended) {
            // a pool class of the application's that started a worker again after all had ended
            p.ended = false;
            ended.remove(p);
            current.add(p);
        }
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

    /** The pools in creation order, the ended ones the report keeps included: a copy, taken under the lock. */
    public List<Pool> pools() {
        synchronized (lock) {
            List<Pool> all = new ArrayList<>(ended.size() + current.size());
            all.addAll(ended);
            all.addAll(current);
            all.sort(ById.ORDER);
            return all;
        }
    }

    /** The pools not known to have ended, in creation order (those that ended may still be among them): the list itself, under the lock. */
    List<Pool> current() {
        return current;
    }

    /** The ended pools kept for the report: the deque itself, under the lock. */
    Collection<Pool> ended() {
        return ended;
    }

    /** Creation order: a class of its own, loaded at the first report, not with the registry at start (and no lambda, DESIGN.md §6.5). */
    private static final class ById implements Comparator<Pool> {
        static final ById ORDER = new ById();

        @Override
        public int compare(Pool a, Pool b) {
            return Integer.compare(a.id, b.id);
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
