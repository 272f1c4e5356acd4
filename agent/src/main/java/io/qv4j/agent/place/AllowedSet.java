package io.qv4j.agent.place;

import io.qv4j.agent.boot.AgentThread;
import io.qv4j.agent.log.Log;
import io.qv4j.agent.node.ProcessAffinity;
import io.qv4j.topology.CpuSet;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/**
 * The process's allowed set can change while the JVM runs ({@code taskset -a -p MASK PID}, a
 * cgroup's cpuset): the kernel moves every thread, but sched_setaffinity still grants any PU of the
 * cgroup's cpuset, so new workers would be bound outside the new set, and a pinned worker whose
 * mask the change left as it was would go on answering the old scope's processor count. Two looks
 * find it: a starting worker whose inherited mask differs from the JVM scope (a hint only: a
 * worker made by a pinned worker differs too), and the {@code qv-allowed} thread every
 * {@link #LOOK_MILLIS} from the first pin on. The process's own mask is read; when it no
 * longer holds the JVM scope and every thread qv4j did not place is inside it (the whole process
 * was narrowed, not one thread the application bound), every pool is planned again inside it and
 * every worker binds again at its next task. After such a narrowing, a process widened again gets
 * its scope back up to what the JVM was granted at start. Said once per change. The same thread
 * asks the JVM again for its scope's count, which follows a changed CPU quota.
 */
final class AllowedSet implements Runnable {

    /** How often the {@code qv-allowed} thread looks: a change is followed within about a second. */
    static final long LOOK_MILLIS = 500;

    private final Placer placer;
    /** The JVM scope at start: a widened process gets back no more than this. */
    private final CpuSet granted;
    /** The scope at the last look, and the count the JVM answered for it (0 before the first). */
    private CpuSet scope;
    private int count;
    /** Opened by the first pin: looking begins. */
    private final CountDownLatch pinned = new CountDownLatch(1);

    private AllowedSet(Placer placer, CpuSet granted) {
        this.placer = placer;
        this.granted = granted;
    }

    /**
     * Starts the {@code qv-allowed} thread for a JVM granted {@code granted} at start. Started by
     * the start-up thread, not by a pinned worker, whose mask it would inherit; it parks until
     * {@link #wake}.
     */
    static AllowedSet start(Placer placer, CpuSet granted) {
        AllowedSet a = new AllowedSet(placer, granted);
        new AgentThread("qv-allowed", a).start();
        return a;
    }

    /** A worker was pinned: looking begins. */
    void wake() {
        pinned.countDown();
    }

    @Override
    public void run() {
        while (true) {
            try {
                pinned.await();
                Thread.sleep(LOOK_MILLIS);
                look();
            } catch (InterruptedException e) {
                return;
            } catch (Throwable t) {
                Log.once("allowed:" + t.getClass().getName(), "allowed set: a look failed (" + t + "); looking again");
            }
        }
    }

    private void look() {
        Env e = placer.env();
        if (e == null || e.topology() == null) return;
        CpuSet process = ProcessAffinity.processMask();
        CpuSet to = process == null ? null : target(granted, e.jvm(), process, placer.registry().allowedChange != null);
        if (to != null) e = follow(placer, e, process, to);
        int n = e.binder().jvmScope(e.jvm());
        if (n > 0 && count > 0 && n != count && e.jvm().equals(scope)) {
            Log.info("the JVM's processor count for its scope pus " + e.jvm() + " changed from " + count + " to " + n
                    + " (its CPU quota?): pinned threads answer " + n);
        }
        count = n;
        scope = e.jvm();
    }

    /**
     * The JVM scope for the process's allowed set {@code process}, or null to keep {@code jvm}:
     * the part of the granted scope inside it (the whole of it where none is), once it no longer
     * holds {@code jvm}; back up to that part when the process was widened after a narrowing.
     */
    static CpuSet target(CpuSet granted, CpuSet jvm, CpuSet process, boolean narrowedBefore) {
        CpuSet inside = granted.and(process);
        CpuSet want = inside.isEmpty() ? process : inside;
        if (want.equals(jvm)) return null;
        return !process.containsAll(jvm) || narrowedBefore ? want : null;
    }

    /**
     * The environment to place the calling worker, whose inherited mask is {@code inherited}, with:
     * {@code e}, or one re-planned inside the process's allowed set now.
     */
    static Env check(Placer placer, Env e, CpuSet inherited) {
        if (inherited == null || e.topology() == null || inherited.equals(e.jvm())) return e;
        CpuSet process = ProcessAffinity.processMask();
        if (process == null || process.containsAll(e.jvm())) return e;
        CpuSet inside = e.jvm().and(process);
        return follow(placer, e, process, inside.isEmpty() ? process : inside);
    }

    /** Plans every pool again inside {@code to}, if the whole process runs inside {@code process}. */
    private static Env follow(Placer placer, Env e, CpuSet process, CpuSet to) {
        PoolRegistry registry = placer.registry();
        Set<Long> placed = new HashSet<>();
        synchronized (registry.lock) {
            for (Worker w : registry.liveWorkers().values()) placed.add(w.tid);
        }
        if (!ProcessAffinity.allInside(process, placed)) return e;
        Env now = e.withJvm(to);
        boolean moved;
        synchronized (registry.lock) {
            if (placer.env() != e) return placer.env(); // another worker re-planned first
            // said first: a worker may take its new place as soon as it is planned
            Log.info("the process's allowed set changed to pus " + process + " (taskset?): pools planned again inside pus " + to
                    + " (was " + e.jvm() + ")");
            placer.ready(now);
            registry.allowedChange = "pus " + e.jvm() + " -> " + to + " (process allowed set " + process + ")";
            moved = replanAll(placer, now);
        }
        for (Pool p : registry.pools()) if (p.planned) placer.events().planned(p);
        if (moved) placer.requestCatchUp();
        return now;
    }

    /**
     * Plans every planned pool again for {@code e}; every running worker binds again at its next
     * task, as the kernel changed its mask too. True when some must. Under the lock.
     */
    private static boolean replanAll(Placer placer, Env e) {
        PoolPlanner planner = placer.planner();
        PoolRegistry registry = placer.registry();
        planner.forgetWeights();
        for (Pool p : registry.pools()) {
            if (!p.planned || !p.pinned) continue;
            p.slots = null;
            p.scope = null;
        }
        planner.syncClaims(e); // gives back the claims of PUs no pool holds now
        boolean moved = false;
        for (Pool p : registry.pools()) {
            if (!p.planned || !p.pinned) continue;
            p.planned = false;
            if (p.carriers) p.parent = planner.carrierScope(e);
            planner.plan(p, e);
            p.reason += ", planned again inside " + e.jvm() + ": the process's allowed set changed";
            if (p.pinned) moved |= planner.moveWorkers(p, true);
        }
        return moved;
    }
}
