package io.qv4j.agent.place;

import io.qv4j.agent.boot.AgentThread;
import io.qv4j.agent.load.LoadMeter;
import io.qv4j.agent.load.PuLoad;
import io.qv4j.agent.log.Log;
import io.qv4j.topology.CpuSet;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * Busy neighbours (DESIGN.md §7.1): the {@code qv-neighbours} thread, the agent's own, looks every
 * period (about {@code neighbours=}, jittered by ±20 % so that JVMs drift apart), and a few times
 * sooner right after the first pin, at how long each pinned worker waited for its PU. A worker
 * that waited {@link PuLoad#WAIT} of the period on a PU others keep {@link PuLoad#BUSY} is moved,
 * by its kernel thread id, to a roomier piece of its pool's split nobody holds (idle, or clearly
 * less busy), the nearest first; with none, after {@link #RELEASE_PERIODS} such periods in a row
 * its pool is released to its scope for the kernel to balance, and pinned again once it fits on
 * idle PUs for a quiet time that doubles with each release. A PU left because of others is not a
 * target for {@link #AVOID_PERIODS}, a moved worker stays put for {@link #COOLDOWN_PERIODS}, and a
 * move waits a random moment and looks again that its target is still idle: another JVM moving
 * at the same instant takes it first rather than both swapping forever. Parked while no worker is
 * pinned. Its own looks run off the PUs of pinned workers that mostly wait ({@link #WAITING_BELOW}).
 */
public final class Neighbours implements Runnable {

    /** Periods a PU left because of others is not a target. */
    static final int AVOID_PERIODS = 20;
    /** Periods a moved worker is not moved again. */
    static final int COOLDOWN_PERIODS = 4;
    /**
     * Contended periods in a row, with no idle piece to go to, before a pool is released: a burst
     * of this JVM's compiler threads that the per-thread readings put on the wrong PU, or of
     * another JVM's start-up, is over by the next period; a CPU hog sharing the PU is not.
     */
    static final int RELEASE_PERIODS = 2;
    /**
     * The first reading after a worker is pinned (a JVM that ends sooner reads nothing), and the
     * first look after it: two JVMs that share no claims and planned at the same instant may have
     * taken the same PU, and are parted within about {@code FIRST_READING + FIRST_LOOK} and a
     * confirming wait ({@link #CONFIRM_SLOTS}); after a quick move the next look comes {@code FIRST_LOOK}
     * or twice that later, at random ({@link #LOOKS_AGAIN}): where both moved to one PU, it parts them. */
    static final long FIRST_READING_MILLIS = 10;
    static final long FIRST_LOOK_MILLIS = 40;
    /** Quiet periods a released pool needs before it is pinned again, doubled by each release up to {@link #MAX_QUIET_PERIODS}. */
    static final int QUIET_PERIODS = 2;
    static final int MAX_QUIET_PERIODS = 128;
    /**
     * A move waits one of {@link #CONFIRM_SLOTS} moments {@link #CONFIRM_SLOT_MILLIS} apart, at random
     * (plus up to {@link #CONFIRM_JITTER_MILLIS}), then looks again at its target: taken when others
     * ran there {@link #TAKEN_MILLIS} more since the period's reading than at the period's rate (two
     * ticks: another JVM's worker that moved there first; a host's steady background is not). Two
     * JVMs that decide at the same instant move at moments at least 15 ms apart but one time in
     * five, and the later sees the earlier ({@code /proc/stat} counts 10 ms ticks); a wait drawn
     * from 0-100 ms put two moves within 20 ms of each other one time in three.
     */
    static final int CONFIRM_SLOTS = 5;
    static final long CONFIRM_SLOT_MILLIS = 20;
    static final long CONFIRM_JITTER_MILLIS = 5;
    static final long TAKEN_MILLIS = 20;
    /**
     * A move's wait ends with {@code STILL_MILLIS} in which its worker must still wait on a run
     * queue at least {@link #STILL_WAITED} of the time (nanoseconds from its schedstat, no ticks),
     * or it stays. Two JVMs' workers on one PU wait about half the time each; once one has left,
     * the other waits next to nothing. The target's load alone missed the first mover where the
     * target PU was already full (start-ups on a 2-PU machine): there the worker takes time from
     * other threads, which /proc/stat does not tell apart, and the two swapped PUs again and again.
     */
    static final long STILL_MILLIS = 10;
    static final double STILL_WAITED = 0.2;
    /** How many quick moves bring the next look forward to {@code FIRST_LOOK}: two JVMs cannot swap for ever. */
    static final int LOOKS_AGAIN = 3;
    /** After a quick look one tick will do: a tick of noise costs a stay until the next look, a few tens of milliseconds away. */
    static final long TAKEN_QUICK_MILLIS = 10;
    /**
     * A pinned worker that ran less than this share of the window mostly waits (for a task, a
     * timer, the network): the watcher keeps its own looks off its PUs, so that its wake-ups do not
     * queue behind them. A loop sleeping 100 µs beside a CPU-bound worker had a p99.9 wake-up delay
     * of 1.4-4 ms with the looks on its PU, 0.1-0.4 ms in 5 runs of 6 with {@code neighbours=off}.
     */
    static final double WAITING_BELOW = 0.5;

    private final Placer placer;
    private final NeighbourReadings readings;
    private final long periodMillis;
    /** xorshift64, seeded by the clock: differs between JVMs, costs no class loading at start-up. */
    private long seed = System.nanoTime() | 1;
    private final Map<Integer, Long> avoid = new HashMap<>();
    private final Map<Pool, Integer> strikes = new IdentityHashMap<>();
    private final Map<Pool, Integer> quiet = new IdentityHashMap<>();
    private final Object idle = new Object();
    private volatile boolean watching;
    private long period;
    private volatile int moves;
    private volatile int releases;
    /** Where this thread was last bound by {@link #keepOffWaiting}; null while it has the mask it started with. */
    private CpuSet ownPus;

    Neighbours(Placer placer, NeighbourReadings readings, long periodMillis) {
        this.placer = placer;
        this.readings = readings;
        this.periodMillis = periodMillis;
    }

    /** Starts the {@code qv-neighbours} thread for the live machine; it parks until a worker is pinned. */
    public static Neighbours start(Placer placer, LoadMeter meter, long periodMillis) {
        Neighbours n = new Neighbours(placer, NeighbourReadings.live(meter), periodMillis);
        placer.neighbours(n);
        new AgentThread("qv-neighbours", n).start();
        return n;
    }

    /** A random number from 0 to {@code bound - 1}. */
    private long random(long bound) {
        seed ^= seed << 13;
        seed ^= seed >>> 7;
        seed ^= seed << 17;
        return Math.floorMod(seed, bound);
    }

    /** A worker was pinned: watching begins, or goes on. */
    void wake() {
        if (watching) return;
        synchronized (idle) {
            watching = true;
            idle.notifyAll();
        }
    }

    @Override
    public void run() {
        long quick = 0; // the wait before the next quick look; 0: a period
        int lookAgain = 0;
        while (true) {
            try {
                if (!watching) {
                    synchronized (idle) {
                        while (!watching) idle.wait();
                    }
                    Thread.sleep(Math.min(FIRST_READING_MILLIS, periodMillis));
                    period(true);
                    quick = FIRST_LOOK_MILLIS;
                    lookAgain = LOOKS_AGAIN;
                }
                boolean soon = quick > 0 && quick < periodMillis;
                Thread.sleep(soon ? quick : Math.round(periodMillis * (0.8 + 0.4 * random(1000) / 1000.0)));
                quick = soon ? quick * 2 : 0;
                int movesBefore = moves;
                if (!period(soon)) {
                    watching = false;
                    readings.reset();
                    if (!watched(new ArrayList<>(), new ArrayList<>(), new ArrayList<>())) continue;
                    watching = true; // pinned between the period and now
                } else if (soon && moves != movesBefore && lookAgain-- > 0) {
                    // 40 or 80 ms, at random: two JVMs that moved together look again apart half the time, and the later sees the earlier gone
                    quick = FIRST_LOOK_MILLIS * (1 + random(2));
                }
            } catch (InterruptedException e) {
                return;
            } catch (Throwable t) {
                Log.once("neighbours:" + t.getClass().getName(), "neighbours: a period failed (" + t + "); trying again next period");
            }
        }
    }

    /** The workers moved and the pools released so far, and the period, for the report. */
    public Map<String, Object> report() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("periodMillis", periodMillis);
        m.put("moves", moves);
        m.put("releases", releases);
        return m;
    }

    /**
     * One period, or with {@code quick} one of the short looks after the first pin, which only move
     * workers, and only where no other JVM claims PUs of their scope: releasing and pinning again
     * wait for whole periods, when start-up bursts are over. False when there is nothing to watch.
     */
    boolean period(boolean quick) throws InterruptedException {
        Env e = placer.env();
        if (e == null || e.topology() == null) return false;
        List<Thread> threads = new ArrayList<>();
        List<Worker> workers = new ArrayList<>();
        List<Pool> released = new ArrayList<>();
        if (!watched(threads, workers, released)) return false;
        long[] tids = new long[workers.size()];
        for (int i = 0; i < tids.length; i++) tids[i] = workers.get(i).tid;
        PuLoad load = readings.next(tids);
        if (load == null) return true;
        keepOffWaiting(e, workers, load);
        period++;
        Map<Pool, Boolean> contendedPools = new IdentityHashMap<>();
        for (int i = 0; i < workers.size(); i++) {
            Worker w = workers.get(i);
            w.waited = load.waited(w.tid);
            if (w.waited < PuLoad.WAIT || load.mean(w.cpuset) < PuLoad.BUSY) continue;
            if (w.movedAt >= 0 && period - w.movedAt < COOLDOWN_PERIODS) continue;
            // JVMs that share claims are kept apart by them when they plan; a quick move while another
            // plans could show it a claim half moved, and it would cut the free PUs into smaller pieces
            if (quick && !PoolPlanner.othersClaim(e, PoolPlanner.scopeOf(w.pool, e)).isEmpty()) continue;
            CpuSet target = target(w, e, load, quick ? MoveTargets.QUICK_MARGIN : PuLoad.BUSY);
            if (target == null) {
                if (quick || !MoveTargets.floatingHelps(w, e, load) || contendedPools.put(w.pool, Boolean.TRUE) != null) continue; // a pool's strike once a period
                if (strikes.merge(w.pool, 1, Integer::sum) >= RELEASE_PERIODS && release(w.pool, e, why(w, load))) strikes.remove(w.pool);
            } else if (confirm(w, target, load, quick ? TAKEN_QUICK_MILLIS : TAKEN_MILLIS)) {
                move(threads.get(i), w, target, e, load, quick);
            }
        }
        if (quick) return true;
        strikes.keySet().retainAll(contendedPools.keySet());
        for (Pool p : released) {
            boolean fits;
            synchronized (placer.registry().lock) {
                fits = placer.planner().fitsIdle(p, e, load);
            }
            if (!fits) {
                quiet.remove(p);
            } else if (quiet.merge(p, 1, Integer::sum) >= Math.min(MAX_QUIET_PERIODS, QUIET_PERIODS << Math.min(p.releases, 6))) {
                quiet.remove(p);
                pinAgain(p, e);
            }
        }
        quiet.keySet().retainAll(released);
        avoid.values().removeIf(until -> until <= period);
        return true;
    }

    /**
     * Binds this (the watcher's) thread to the PUs where ordinary pools go less those of the
     * workers that mostly wait ({@link #WAITING_BELOW}); where that leaves none, to all of them.
     */
    private void keepOffWaiting(Env e, List<Worker> workers, PuLoad load) {
        CpuSet base = e.ordinary();
        if (base == null || base.isEmpty()) return;
        CpuSet waiting = CpuSet.empty();
        for (Worker w : workers) {
            double ran = load.ran(w.tid);
            if (ran >= 0 && ran < WAITING_BELOW && w.cpuset != null) waiting = waiting.or(w.cpuset);
        }
        CpuSet home = base.andNot(waiting);
        if (home.isEmpty()) home = base;
        if (home.equals(ownPus) || ownPus == null && home.equals(base)) return;
        if (e.binder().bind(home)) ownPus = home;
    }

    /** Fills the pinned workers to watch and the released pools; false when there are none. */
    private boolean watched(List<Thread> threads, List<Worker> workers, List<Pool> released) {
        Env e = placer.env();
        if (e == null) return false;
        PoolRegistry registry = placer.registry();
        synchronized (registry.lock) {
            for (Map.Entry<Thread, Worker> x : registry.liveWorkers().entrySet()) {
                Worker w = x.getValue();
                Pool p = w.pool;
                // an exclusive worker has its core to itself: nothing of this JVM to step round
                if (w.exited || !w.bound || w.tid <= 0 || w.appBound || !p.pinned || p.released || p.exclusive || p.slots == null || w.slot < 0) continue;
                if (w.cpuset == null || w.cpuset.cardinality() >= PoolPlanner.scopeOf(p, e).cardinality()) continue;
                threads.add(x.getKey());
                workers.add(w);
            }
            for (Pool p : registry.pools()) if (p.released && p.pinned && p.tasks > 0 && p.alive()) released.add(p);
        }
        return !workers.isEmpty() || !released.isEmpty();
    }

    /**
     * A roomier piece ({@link MoveTargets#roomier}) of {@code w}'s pool's split, as large as its own, that no pinned pool of this
     * JVM (its own included) and no other JVM holds and that was not left because of others lately: the nearest in the
     * machine's tree, then the least loaded, idle ones before the rest; null when there is none.
     */
    private CpuSet target(Worker w, Env e, PuLoad load, double margin) {
        Pool p = w.pool;
        CpuSet scope = PoolPlanner.scopeOf(p, e);
        List<CpuSet> cut = placer.planner().cut(p, e, scope);
        CpuSet taken;
        synchronized (placer.registry().lock) {
            taken = PoolPlanner.othersClaim(e, scope).or(placer.planner().held(null));
        }
        List<CpuSet> idle = new ArrayList<>();
        List<CpuSet> roomier = new ArrayList<>();
        for (CpuSet c : cut) {
            if (c.cardinality() != w.cpuset.cardinality() || c.intersects(taken) || avoided(c) || !MoveTargets.roomier(load, c, w.cpuset, margin)) continue;
            (load.mean(c) <= PuLoad.IDLE ? idle : roomier).add(c);
        }
        return MoveTargets.nearest(w.cpuset, idle.isEmpty() ? roomier : idle, load, e.topology());
    }

    private boolean avoided(CpuSet c) {
        for (int pu : c.toArray()) if (avoid.containsKey(pu)) return true;
        return false;
    }

    /**
     * Waits a random moment and looks again: false when {@code w} waited less than
     * {@link #STILL_WAITED} of the wait's last {@link #STILL_MILLIS} (whoever kept it waiting has
     * left: another JVM's worker that moved first), or when others ran on the target
     * {@code takenMillis} more since the period's reading than at the period's rate (another JVM
     * moved there).
     */
    private boolean confirm(Worker w, CpuSet target, PuLoad period, long takenMillis) throws InterruptedException {
        Thread.sleep(CONFIRM_SLOT_MILLIS * random(CONFIRM_SLOTS) + random(CONFIRM_JITTER_MILLIS + 1));
        long before = readings.waitedNanos(w.tid);
        long t0 = System.nanoTime();
        Thread.sleep(STILL_MILLIS);
        long after = readings.waitedNanos(w.tid);
        if (before >= 0 && after >= 0 && after - before < STILL_WAITED * (System.nanoTime() - t0)) {
            Log.debug("neighbours: pool " + w.pool.name + " thread \"" + w.name + "\" no longer waits for pus " + w.cpuset + ": stays");
            return false;
        }
        PuLoad recent = readings.since();
        return recent == null || (recent.mean(target) - period.mean(target)) * recent.millis() < takenMillis;
    }

    /** {@code thread "app-1" waited 48 % of the last 510 ms for pu 0 (others keep it 97 % busy)}. */
    private static String why(Worker w, PuLoad load) {
        return "thread \"" + w.name + "\" waited " + percent(w.waited) + " of the last " + load.millis() + " ms for pus " + w.cpuset
                + " (others keep them " + percent(load.mean(w.cpuset)) + " busy)";
    }

    private static String percent(double f) {
        return Math.round(f * 100) + " %"; // not String.format: its first use in a JVM costs 20-30 ms, on the move that parts two JVMs
    }

    /**
     * Moves {@code w} to {@code target}: its slot's piece changes, the claims follow, the thread is
     * bound by its tid; unless another JVM claimed part of the target since the look. After a period the PU left is avoided and the worker stays a while; after a
     * {@code quick} look neither: two JVMs' workers that left one PU for the same other one at the
     * same instant part at the next look.
     */
    private void move(Thread t, Worker w, CpuSet target, Env e, PuLoad load, boolean quick) {
        Pool p = w.pool;
        CpuSet from = w.cpuset;
        String why = why(w, load);
        PoolRegistry registry = placer.registry();
        synchronized (registry.lock) {
            if (w.exited || p.slots == null || p.released || !from.equals(w.cpuset) || w.slot < 0 || w.slot >= p.slots.size()) return;
            if (!placer.planner().moveSlot(p, w.slot, target, e)) return;
            w.cpuset = target;
            w.topology = e.topology();
            w.moves++;
            if (!quick) w.movedAt = period;
            // a pool worker binds itself again at its next task, so that it answers the JVM scope's processor count and its memory policy follows
            if (rebindsItself(p)) registry.moves.put(t, target);
        }
        if (!quick) for (int pu : from.toArray()) avoid.put(pu, period + AVOID_PERIODS);
        w.bound = e.binder().bindThread(w.tid, target);
        moves++;
        placer.events().moved(p, w, why + "; moved to " + w.piece());
        Log.debug("neighbours: pool " + p.name + " " + why + ": moved to " + w.piece() + e.binder().outcome(w.bound));
        placer.requestCatchUp();
    }

    /** A pool whose workers pass a hook between tasks ({@code getTask}, {@code topLevelExec}), where they bind themselves again. */
    private static boolean rebindsItself(Pool p) {
        Object pool = p.ref.get();
        return pool instanceof ThreadPoolExecutor || pool instanceof ForkJoinPool;
    }

    /** Every piece is held or busy: the pool's workers share its scope, for the kernel to balance, until the load is gone. */
    private boolean release(Pool p, Env e, String why) {
        CpuSet scope = PoolPlanner.scopeOf(p, e);
        Map<Thread, Worker> members = new LinkedHashMap<>();
        PoolRegistry registry = placer.registry();
        synchronized (registry.lock) {
            if (p.released || p.slots == null) return false;
            p.slots = null;
            p.scope = scope;
            p.shares = true;
            p.released = true;
            p.releases++;
            placer.planner().syncClaims(e);
            for (Map.Entry<Thread, Worker> x : registry.liveWorkers().entrySet()) {
                Worker w = x.getValue();
                if (w.pool != p || w.exited || w.appBound) continue;
                w.slot = -1;
                w.cpuset = scope;
                w.topology = e.topology();
                members.put(x.getKey(), w);
                if (rebindsItself(p)) registry.moves.put(x.getKey(), scope);
            }
        }
        for (Worker w : members.values()) w.bound = e.binder().bindThread(w.tid, scope);
        releases++;
        Log.info("pool " + p.name + ": " + why + " and no idle piece is left in pus " + scope + ": its workers share pus " + scope
                + " for the kernel to balance, until the load is gone");
        placer.events().released(p, why);
        placer.requestCatchUp();
        return true;
    }

    /** The load is gone: the pool is planned again on the PUs others leave idle and its workers bound to their pieces. */
    private void pinAgain(Pool p, Env e) {
        Map<Thread, Worker> members = new LinkedHashMap<>();
        PoolRegistry registry = placer.registry();
        synchronized (registry.lock) {
            p.planned = false;
            p.slots = null;
            p.scope = null;
            p.shares = false;
            placer.planner().plan(p, e);
            if (p.slots == null || p.released) return;
            for (Map.Entry<Thread, Worker> x : registry.liveWorkers().entrySet()) {
                Worker w = x.getValue();
                if (w.pool != p || w.exited || w.appBound) continue;
                w.slot = p.slots.take(x.getKey());
                w.cpuset = w.slot >= 0 ? p.slots.piece(w.slot) : p.scope;
                if (w.cpuset == null) w.cpuset = p.scope;
                w.topology = e.topology();
                members.put(x.getKey(), w);
                if (rebindsItself(p)) registry.moves.put(x.getKey(), w.cpuset);
            }
            placer.events().planned(p);
        }
        for (Worker w : members.values()) {
            w.bound = e.binder().bindThread(w.tid, w.cpuset);
            placer.events().placed(p, w, e.binder().binds());
        }
        Log.info("pool " + p.name + ": the load on pus " + PoolPlanner.scopeOf(p, e) + " is gone: its workers are pinned again (" + p.universe + ")");
        placer.requestCatchUp();
    }
}
