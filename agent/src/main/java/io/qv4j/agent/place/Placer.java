package io.qv4j.agent.place;

import io.qv4j.agent.bind.Binder;
import io.qv4j.agent.config.Options;
import io.qv4j.agent.config.Policy;
import io.qv4j.agent.config.Rules;
import io.qv4j.agent.log.Log;
import io.qv4j.agent.platform.LivePlatform;
import io.qv4j.api.Memory;
import io.qv4j.topology.CpuSet;

import java.util.Locale;
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

    private final Options options;
    private final PoolRegistry registry = new PoolRegistry();
    private final Eligibility eligibility;
    private final PoolPlanner planner;
    private final ThreadSets threads;
    private final GrowingGroups groups;
    private final ExclusiveRoom room;
    private final MemoryBinding memory = new MemoryBinding();
    /** Plain threads placed as a group's tasks: their exit frees their slot. */
    private final Map<Thread, Boolean> grouped = new ConcurrentHashMap<>();
    private final CountDownLatch ready = new CountDownLatch(1);
    private final long waitMillis;
    private volatile Env env;
    /** Set once qv4j has bound some thread: before that no thread can have inherited a mask it gave. */
    private volatile boolean boundAny;
    private volatile Runnable onPending;
    private volatile Annotated annotated = Annotated.NONE;
    private volatile PlacementEvents events = PlacementEvents.NONE;
    private volatile Neighbours neighbours;
    /** The {@code qv-allowed} thread's watch ({@link AllowedSet}), from the first live environment on. */
    private volatile AllowedSet allowed;

    public Placer(Options options, Rules rules, long waitMillis) {
        this.options = options;
        this.waitMillis = waitMillis;
        this.eligibility = new Eligibility(options, rules);
        this.room = new ExclusiveRoom(this, options.vmThreads());
        this.planner = new PoolPlanner(options, rules, registry, room);
        boolean binds = options.bind() != Options.Bind.OFF;
        this.threads = new ThreadSets(binds ? rules : Rules.none(), binds);
        this.groups = new GrowingGroups(registry, planner, threads);
    }

    /** The exclusive PUs changed ({@link ExclusiveRoom}): the environment from now on. */
    void exclusive(Env now) {
        env = now;
    }

    public void annotations(Annotated a) {
        annotated = a;
    }

    /** Who hears of plans, placements and exits (status, Flight Recorder, JMX). */
    public void events(PlacementEvents e) {
        events = e;
    }

    PlacementEvents events() {
        return events;
    }

    /** The busy-neighbours watcher, woken when a worker is pinned. */
    void neighbours(Neighbours n) {
        neighbours = n;
    }

    /** The busy-neighbours watcher, or null when {@code neighbours=off}. */
    public Neighbours neighbours() {
        return neighbours;
    }

    /** The environment is known: placement may begin. Threads pinned from now on answer the processor count of its JVM scope. */
    public void ready(Env e) {
        if (e.live() && e.jvm() != null) e.binder().jvmScope(e.jvm());
        if (allowed == null && e.live() && e.topology() != null && e.binder().binds()) {
            allowed = AllowedSet.start(this, e.node() != null ? e.node().jvm() : e.jvm());
        }
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
        boolean pinned;
        int size = Eligibility.tasks(pool); // before the lock: a pool's class may override the getters (PoolState)
        synchronized (registry.lock) {
            if (registry.known(t)) return;
            Pool p = registry.register(pool);
            if (!p.decided) eligibility.decide(p, t, size);
            pinned = p.pinned;
            if (!pinned) registry.addWorker(p, t);
        }
        if (!pinned) {
            if (boundAny) ApplicationBound.unconfine(this, t, false);
            return;
        }
        Env e = env != null ? env : awaitEnv();
        if (e == null) {
            synchronized (registry.lock) {
                registry.addPending(t, pool);
            }
            requestCatchUp();
            return;
        }
        place(pool, t, e, -1, size);
    }

    /** Per-task catch-up: a worker that started before the environment was ready or before attach, or that a rebalance moved. */
    public void catchUp(Object pool, Thread t, boolean attached) {
        Env e = env;
        if (e == null) return;
        if (!registry.moves.isEmpty() && rebind(t, e)) return;
        boolean was;
        synchronized (registry.lock) {
            was = registry.removePending(t);
            if (!was && (!attached || registry.known(t))) return; // after an attach: each task of a placed worker
        }
        int size = Eligibility.tasks(pool); // not under the lock (PoolState)
        if (!was) {
            synchronized (registry.lock) {
                if (registry.known(t)) return;
                Pool p = registry.register(pool);
                if (!p.decided) eligibility.decide(p, t, size);
                if (!p.pinned) {
                    registry.addWorker(p, t);
                    return;
                }
            }
        }
        place(pool, t, e, -1, size);
    }

    /** Per-task point of a fork/join worker: it binds itself again if a rebalance or the watcher moved it; true if it had moved. */
    public boolean rebindIfMoved(Thread t) {
        Env e = env;
        return e != null && !registry.moves.isEmpty() && rebind(t, e);
    }

    public boolean anyPending() {
        return registry.anyPending();
    }

    /** Places {@code t} as a worker of {@code pool} ({@code size} tasks now), in slot {@code ask} if that is free (else the lowest free one). */
    private void place(Object pool, Thread t, Env given, int ask, int size) {
        long t0 = System.nanoTime();
        CpuSet inherited = given.live() && given.binder().binds() ? Binder.currentMask() : null; // read once: both checks below use it
        int cpu = inherited != null ? given.binder().currentCpu() : -1; // where it runs: a slot there spares it a move
        AllowedSet.check(this, given, inherited); // a changed allowed set: every pool planned again, the environment with it
        Env e;
        Worker w;
        boolean exclusive = false;
        synchronized (registry.lock) {
            if (registry.known(t)) return;
            e = env; // as it is now, not as read before: an exclusive pool planned meanwhile took its cores out of it
            Pool p = registry.register(pool);
            Pool family = groups.family(p, t);
            if (family != null) {
                p = family;
                ask = ThreadSets.slot(t.getName().substring(ThreadSets.trailingDigits(t.getName())));
            }
            if (!p.planned) {
                if (p.tasks == 0) p.tasks = planner.pieces(p, e);
                if (p.carriers) p.parent = planner.carrierScope(e);
                planner.plan(p, e);
                events.planned(p);
                if (p.exclusive) {
                    e = room.changed(e);
                    exclusive = true;
                }
            } else if (p.slots != null && !p.group() && size != p.tasks && planner.resize(p, size, e)) {
                events.planned(p);
                requestCatchUp();
            }
            w = registry.addWorker(p, t);
            if (!p.pinned) return;
            if (p.slots != null) {
                w.slot = p.slots.takeAt(ask, t);
                if (w.slot < 0) w.slot = p.slots.take(t, cpu);
                if (w.slot < 0 && registry.reclaimDead(p) > 0) w.slot = p.slots.take(t, cpu);
                if (w.slot < 0 && p.grows) w.slot = groups.grow(p, t, ask, e, events);
                if (w.slot >= 0) w.cpuset = p.slots.piece(w.slot);
            }
            if (w.cpuset == null) w.cpuset = p.scope;
            w.topology = e.topology();
        }
        if (inherited != null && ApplicationBound.leftAlone(registry, w, e, events, inherited)) return;
        bind(w, e, t0);
        if (exclusive) room.keepOff();
    }

    private void bind(Worker w, Env e, long t0) {
        w.tid = e.binder().currentTid(); // the status command reads each worker's kernel mask by its tid
        CpuSet c = w.cpuset;
        w.bound = e.binder().bind(c);
        if (w.bound) memory.apply(w, e);
        if (w.pool.grows) groups.bindAgainIfMoved(w, c, e);
        if (w.bound) {
            AllowedSet a = allowed;
            if (!boundAny && a != null) a.wake();
            boundAny = true;
            Neighbours n = neighbours;
            if (n != null) n.wake();
        }
        w.startNanos = System.nanoTime() - t0;
        events.placed(w.pool, w, e.binder().binds());
        if (Log.isVerbose()) {
            Pool p = w.pool;
            String slot = w.slot >= 0 ? (w.slot + "/" + p.tasks) : (p.tasks < 0 ? "unbounded" : "extra/" + p.tasks);
            Log.debug("pool " + p.name + "[" + slot + "] thread \"" + w.name + "\" -> " + w.piece() + e.binder().outcome(w.bound)
                    + MemoryBinding.describe(w));
        }
    }

    /** The workers' memory policies (DESIGN.md §7.3). */
    MemoryBinding memory() {
        return memory;
    }

    /**
     * Premain, on the main thread: the option's {@code memory} word becomes the JVM piece's policy
     * (DESIGN.md §7.3). Waits for the environment (the start-up wait at most), so only a JVM that
     * asked for a policy pays for it; {@code local}, the default, returns at once.
     */
    public void memoryForJvm() {
        if (options.memory() == Memory.LOCAL) return;
        Env e = awaitEnv();
        if (e == null) {
            Log.info("memory=" + options.memory().name().toLowerCase(Locale.ROOT) + ": the machine was not known within " + waitMillis
                    + " ms of start-up: the main thread's new pages go where first touched");
            return;
        }
        memory.jvm(e, options.memory());
        String d = memory.jvmDescription();
        if (d != null && Log.isVerbose()) Log.debug("the JVM's piece " + e.jvm() + ": memory " + d + " (main thread and the threads it creates)");
    }

    /** The JVM piece's memory policy ({@code "interleave nodes 0-3"}), null where the kernel's default holds. */
    public String jvmMemory() {
        return memory.jvmDescription();
    }

    /** Rebinds {@code t} on its own thread if a rebalance moved it; true if it had moved. */
    private boolean rebind(Thread t, Env e) {
        CpuSet c = registry.moves.remove(t);
        if (c == null) return false;
        Worker w;
        boolean remark;
        synchronized (registry.lock) {
            w = registry.worker(t);
            if (w == null || w.exited) return true;
            // moved by its tid already (Neighbours): bound again on itself, below, to answer the JVM scope's processor count
            remark = c.equals(w.cpuset);
            if (!remark) w.cpuset = c;
            if (!remark) {
                w.topology = e.topology();
                w.rebinds++;
            }
        }
        w.bound = e.binder().bind(c);
        if (w.bound) memory.apply(w, e); // also after a move by tid: only the thread itself can set its memory policy
        if (remark) return true;
        events.placed(w.pool, w, e.binder().binds());
        if (Log.isVerbose()) Log.debug("rebalance: thread \"" + w.name + "\" -> " + w.piece() + e.binder().outcome(w.bound));
        return true;
    }

    /**
     * A platform thread starts running, on itself ({@code Thread.run()}): if a rule or a recognizer
     * makes it a task of a group of plain threads, it is placed like a pool's worker, in the slot
     * its name gives. Threads nothing names return after one lookup.
     */
    public void threadStart(Thread t) {
        ThreadSet g = threads.match(t);
        if (g == null) {
            if (boundAny) ApplicationBound.unconfine(this, t, ThreadSets.poolWorker(t));
            return;
        }
        GroupKey key = threads.key(g);
        synchronized (registry.lock) {
            if (registry.known(t)) return;
            boolean fresh = registry.find(key) == null;
            Pool p = registry.group(key, g);
            if (fresh && Log.isVerbose()) Log.debug("pool " + p.name + ": " + PoolPlanner.policyOf(p, options) + " from " + p.reason);
        }
        Env e = env != null ? env : awaitEnv();
        if (e == null) return; // runs unpinned: a plain thread has no later event to catch up at
        grouped.put(t, Boolean.TRUE);
        place(key, t, e, g.slot(), -1);
    }

    /** A plain thread's run() returns: a group's thread frees its slot. One lookup for the others. */
    public void threadExit(Thread t) {
        if (grouped.remove(t) == null) return;
        left(t);
    }

    /** A worker leaves, on its own thread: its slot is free for a replacement. */
    public void workerExit(Object pool, Thread t) {
        left(t);
        events.changed();
    }

    /** Frees {@code t}'s slot; the last worker of an exclusive pool that ended gives its cores back. */
    private void left(Thread t) {
        boolean gaveBack = false;
        synchronized (registry.lock) {
            Worker w = registry.removeWorker(t);
            Env e = env;
            if (w != null && w.pool.exclusive && w.pool.gone() && e != null) {
                Env now = room.changed(e);
                planner.syncClaims(now);
                gaveBack = !now.exclusive().equals(e.exclusive());
                if (gaveBack) Log.debug("pool " + w.pool.name + " ended: its exclusive pus " + e.exclusive().andNot(now.exclusive()) + " are given back");
            }
        }
        if (gaveBack) room.giveBack();
    }
}
