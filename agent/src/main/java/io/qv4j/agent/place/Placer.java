package io.qv4j.agent.place;

import io.qv4j.agent.config.Options;
import io.qv4j.agent.config.Policy;
import io.qv4j.agent.config.Rules;
import io.qv4j.agent.bind.Binder;
import io.qv4j.agent.log.Log;
import io.qv4j.agent.platform.LivePlatform;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.HwType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Pools, slots and placement (DESIGN.md §6.2): the hook events, each a few calls to the
 * {@link PoolRegistry}, the {@link Eligibility} decision, the {@link PoolPlanner} and the binder.
 * Called on the creating thread when a pool is made, on the worker itself when it starts, runs a
 * task (catch-up) and leaves. Bookkeeping is under the registry's lock; the bind runs outside it.
 */
public final class Placer {

    /** What the annotations say about pools made on this thread; {@link #NONE} without annotations. */
    public interface Annotated {
        /** The innermost {@code @Placement} in progress on this thread, or null. */
        Policy current();

        /** A pool was made on this thread (for a field assigned next). */
        void created(Object pool);

        /** The piece a {@code @Bind} call in progress on this thread holds, or null. */
        CpuSet piece();
    }

    public static final Annotated NONE = new Annotated() {
        @Override
        public Policy current() {
            return null;
        }

        @Override
        public void created(Object pool) {
        }

        @Override
        public CpuSet piece() {
            return null;
        }
    };

    private final Options options;
    private final PoolRegistry registry = new PoolRegistry();
    private final Eligibility eligibility;
    private final PoolPlanner planner;
    private final ThreadSets threads;
    /** Plain threads placed as a group's tasks: their exit frees their slot. */
    private final Map<Thread, Boolean> grouped = new ConcurrentHashMap<>();
    private final CountDownLatch ready = new CountDownLatch(1);
    private final long waitMillis;
    private final boolean wantTid;
    private volatile Env env;
    private volatile Runnable onPending;
    private volatile Annotated annotated = NONE;

    public Placer(Options options, Rules rules, long waitMillis) {
        this.options = options;
        this.waitMillis = waitMillis;
        this.wantTid = options.verbose() || options.report() != null;
        this.eligibility = new Eligibility(options, rules);
        this.planner = new PoolPlanner(options, rules, registry);
        boolean binds = options.bind() != Options.Bind.OFF;
        this.threads = new ThreadSets(binds ? rules : Rules.none(), binds);
    }

    public void annotations(Annotated a) {
        annotated = a;
    }

    /** The environment is known: placement may begin. */
    public void ready(Env e) {
        env = e;
        ready.countDown();
    }

    /** The environment, or null before it is known. */
    public Env env() {
        return env;
    }

    /** The environment, waiting up to the start-up wait for it; null if it is still not known. */
    public Env awaitEnv() {
        try {
            ready.await(waitMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
        return env;
    }

    public Options options() {
        return options;
    }

    public PoolRegistry registry() {
        return registry;
    }

    PoolPlanner planner() {
        return planner;
    }

    /** Why heap allocation will not follow placement across NUMA nodes, or null. */
    public String numaAdvice() {
        return planner.numaAdvice();
    }

    /** Called when some worker must be placed at its next task: turns the per-task catch-up on. */
    public void onPending(Runnable r) {
        onPending = r;
    }

    void requestCatchUp() {
        Runnable r = onPending;
        if (r != null) r.run();
    }

    /** A pool constructor finished (may be called once per delegating constructor). */
    public void poolCreated(Object pool) {
        synchronized (registry.lock) {
            if (registry.find(pool) != null) return;
        }
        Eligibility.Creator creator = Eligibility.creator(pool);
        Policy policy = annotated.current();
        annotated.created(pool);
        Thread me = Thread.currentThread();
        synchronized (registry.lock) {
            if (registry.find(pool) != null) return;
            Pool p = registry.add(pool, Eligibility.originOf(creator.className()), creator);
            p.policy = policy;
            p.parent = placedPiece(me);
        }
    }

    /**
     * The piece qv4j placed {@code t} on, or null (DESIGN.md §7, nested scopes): a pinned worker's,
     * a {@code @Bind} call's in progress, or a {@code Scope.bind()}'s. A pool made on such a thread
     * splits that piece. Under the lock.
     */
    private CpuSet placedPiece(Thread t) {
        Worker w = registry.worker(t);
        if (w != null && w.pool.pinned && w.cpuset != null) return w.cpuset;
        CpuSet bind = annotated.piece();
        return bind != null ? bind : LivePlatform.placed();
    }

    /** The pool was assigned to a {@code @Placement} field: that policy wins, if its workers have not started. */
    public void annotate(Object pool, Policy policy) {
        synchronized (registry.lock) {
            Pool p = registry.register(pool);
            if (p.decided) {
                Log.debug("pool " + p.name + ": " + policy.source() + " comes after its workers started: ignored");
                return;
            }
            p.policy = policy;
        }
    }

    /**
     * A worker of {@code pool} starts, on its own thread. Whether the pool is pinned is decided
     * without the environment; only workers of pinned pools wait for it (JDK-internal pools must
     * not: the background start-up itself runs a process, whose reaper is a pool worker).
     */
    public void workerStart(Object pool, Thread t) {
        synchronized (registry.lock) {
            if (registry.known(t)) return;
            Pool p = registry.register(pool);
            if (!p.decided) eligibility.decide(p, t);
            if (!p.pinned) {
                registry.addWorker(p, t);
                return;
            }
        }
        Env e = env != null ? env : awaitEnv();
        if (e == null) {
            synchronized (registry.lock) {
                registry.addPending(t, pool);
            }
            requestCatchUp();
            return;
        }
        place(pool, t, e);
    }

    /** Per-task catch-up: a worker that started before the environment was ready or before attach, or that a rebalance moved. */
    public void catchUp(Object pool, Thread t, boolean attached) {
        Env e = env;
        if (e == null) return;
        if (!registry.moves.isEmpty() && rebind(t, e)) return;
        synchronized (registry.lock) {
            boolean was = registry.removePending(t);
            if (!was && (!attached || registry.known(t))) return;
            if (!was) {
                Pool p = registry.register(pool);
                if (!p.decided) eligibility.decide(p, t);
                if (!p.pinned) {
                    registry.addWorker(p, t);
                    return;
                }
            }
        }
        place(pool, t, e);
    }

    public boolean anyPending() {
        return registry.anyPending();
    }

    private void place(Object pool, Thread t, Env e) {
        place(pool, t, e, -1);
    }

    /** Places {@code t} as a worker of {@code pool}, in slot {@code ask} if that is free (else the lowest free one). */
    private void place(Object pool, Thread t, Env e, int ask) {
        long t0 = System.nanoTime();
        Worker w;
        synchronized (registry.lock) {
            if (registry.known(t)) return;
            Pool p = registry.register(pool);
            if (!p.planned) {
                if (p.tasks == 0) p.tasks = planner.pieces(p, e);
                if (p.carriers) p.parent = carrierScope(e);
                planner.plan(p, e);
            } else if (p.slots != null && !p.group() && Eligibility.tasks(pool) != p.tasks) resized(p, pool, e);
            w = registry.addWorker(p, t);
            if (!p.pinned) return;
            if (p.slots != null) {
                w.slot = p.slots.takeAt(ask, t);
                if (w.slot < 0) w.slot = p.slots.take(t);
                if (w.slot < 0 && reclaimDead(p) > 0) w.slot = p.slots.take(t);
                if (w.slot >= 0) w.cpuset = p.slots.piece(w.slot);
            }
            if (w.cpuset == null) w.cpuset = p.scope;
            w.label = e.topology().label(w.cpuset);
        }
        if (e.live() && e.binder().binds() && boundByApplication(w, e)) return;
        bind(w, e, t0);
    }

    /**
     * A thread whose mask is already narrower than the pool's universe, and not because qv4j put
     * it there (nor its creator, which qv4j placed: a new thread inherits its creator's mask), was
     * bound by the application (its thread factory, say): it is left as it is.
     */
    private boolean boundByApplication(Worker w, Env e) {
        CpuSet now = Binder.currentMask();
        CpuSet universe = w.pool.parent != null ? w.pool.parent.and(e.jvm()) : e.jvm();
        if (now == null || now.equals(universe) || !universe.containsAll(now) || now.equals(w.cpuset)) return false;
        synchronized (registry.lock) {
            // a thread started by a thread qv4j placed inherits that thread's mask: not the application's doing
            for (Worker o : registry.liveWorkers().values()) if (o != w && o.bound && now.equals(o.cpuset)) return false;
            if (w.slot >= 0) w.pool.slots.release(w.slot, Thread.currentThread());
            w.slot = -1;
            w.cpuset = now;
            w.label = e.topology().label(now) + " (bound by the application)";
        }
        Log.once("appbound:" + w.pool.name, "pool " + w.pool.name + ": thread \"" + w.name + "\" was already bound to pus " + now
                + " by the application: left there");
        return true;
    }

    /** The {@code carriers=} scope: the JVM's ({@code jvm}), or the N-th object of TYPE that has PUs in it; null = the JVM scope. */
    private CpuSet carrierScope(Env e) {
        String c = options.carriers();
        int colon = c == null ? -1 : c.indexOf(':');
        if (colon < 0 || e.topology() == null) return null;
        int n = Integer.parseInt(c.substring(colon + 1));
        int i = 0;
        for (HwObject o : e.topology().objects(HwType.parse(c.substring(0, colon)))) {
            if (!o.cpuset().intersects(e.jvm())) continue;
            if (i++ == n) return o.cpuset().and(e.jvm());
        }
        Log.once("carriers:" + c, "carriers=" + c + ": no such object in the JVM's scope " + e.jvm() + ": carriers bound to the JVM scope");
        return null;
    }

    /** Slots whose owner died without an exit event (an exception out of a worker's run): freed. Under the lock. */
    private int reclaimDead(Pool p) {
        List<Thread> dead = new ArrayList<>();
        for (Map.Entry<Thread, Worker> x : registry.liveWorkers().entrySet()) {
            if (x.getValue().pool == p && !x.getKey().isAlive()) dead.add(x.getKey());
        }
        for (Thread d : dead) registry.removeWorker(d);
        return dead.size();
    }

    /**
     * The pool's size changed ({@code setCorePoolSize}): plan again for the new size; running
     * workers keep their slot number where it still exists and move at their next task. Under the lock.
     */
    private void resized(Pool p, Object pool, Env e) {
        int before = p.tasks;
        planner.release(p, e);
        p.tasks = Eligibility.tasks(pool);
        planner.plan(p, e);
        Log.debug("pool " + p.name + " resized from " + before + " to " + p.tasks + " workers: planned again");
        if (p.slots == null) return;
        for (Map.Entry<Thread, Worker> x : registry.liveWorkers().entrySet()) {
            Worker w = x.getValue();
            if (w.pool != p || w.exited) continue;
            int slot = w.slot >= 0 && w.slot < p.tasks ? p.slots.takeAt(w.slot, x.getKey()) : -1;
            w.slot = slot;
            CpuSet c = slot >= 0 ? p.slots.piece(slot) : p.scope;
            if (!c.equals(w.cpuset)) registry.moves.put(x.getKey(), c);
        }
        if (!registry.moves.isEmpty()) requestCatchUp();
    }

    private void bind(Worker w, Env e, long t0) {
        if (wantTid) w.tid = e.binder().currentTid();
        w.bound = e.binder().bind(w.cpuset);
        w.startNanos = System.nanoTime() - t0;
        if (Log.isVerbose()) {
            Pool p = w.pool;
            String slot = w.slot >= 0 ? (w.slot + "/" + p.tasks) : (p.tasks < 0 ? "unbounded" : "extra/" + p.tasks);
            Log.debug("pool " + p.name + "[" + slot + "] thread \"" + w.name + "\" -> " + w.label + e.binder().outcome(w.bound));
        }
    }

    /** Rebinds {@code t} on its own thread if a rebalance moved it; true if it had moved. */
    private boolean rebind(Thread t, Env e) {
        CpuSet c = registry.moves.remove(t);
        if (c == null) return false;
        Worker w;
        synchronized (registry.lock) {
            w = registry.worker(t);
            if (w == null || w.exited) return true;
            w.cpuset = c;
            w.label = e.topology().label(c);
            w.rebinds++;
        }
        w.bound = e.binder().bind(c);
        if (Log.isVerbose()) Log.debug("rebalance: thread \"" + w.name + "\" -> " + w.label + e.binder().outcome(w.bound));
        return true;
    }

    /**
     * A platform thread starts running, on itself ({@code Thread.run()}): if a rule or a recognizer
     * makes it a task of a group of plain threads, it is placed like a pool's worker, in the slot
     * its name gives. Threads nothing names return after one lookup.
     */
    public void threadStart(Thread t) {
        ThreadSet g = threads.match(t);
        if (g == null) return;
        GroupKey key = threads.key(g);
        synchronized (registry.lock) {
            if (registry.known(t)) return;
            Pool p = registry.find(key);
            if (p == null) {
                p = registry.addGroup(key, g.type());
                p.decided = true;
                p.pinned = true;
                p.name = g.name();
                p.tasks = g.tasks();
                p.rule = g.rule();
                p.policy = g.policy();
                p.reason = g.reason();
                if (Log.isVerbose()) Log.debug("pool " + p.name + ": " + PoolPlanner.policyOf(p, options) + " from " + p.reason);
            }
        }
        Env e = env != null ? env : awaitEnv();
        if (e == null) return; // runs unpinned: a plain thread has no later event to catch up at
        grouped.put(t, Boolean.TRUE);
        place(key, t, e, g.slot());
    }

    /** A plain thread's run() returns: a group's thread frees its slot. One lookup for the others. */
    public void threadExit(Thread t) {
        if (grouped.remove(t) == null) return;
        synchronized (registry.lock) {
            registry.removeWorker(t);
        }
    }

    /** A worker leaves, on its own thread: its slot is free for a replacement. */
    public void workerExit(Object pool, Thread t) {
        synchronized (registry.lock) {
            registry.removeWorker(t);
        }
    }
}
