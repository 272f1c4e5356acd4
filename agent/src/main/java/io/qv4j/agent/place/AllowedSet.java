package io.qv4j.agent.place;

import io.qv4j.agent.log.Log;
import io.qv4j.agent.node.ProcessAffinity;
import io.qv4j.topology.CpuSet;

import java.util.HashSet;
import java.util.Set;

/**
 * The process's allowed set can change while the JVM runs ({@code taskset -a -p MASK PID}): the
 * kernel moves every thread, but sched_setaffinity still grants any PU of the cgroup's cpuset, so
 * new workers would be bound outside the new set. A starting worker whose inherited mask differs
 * from the JVM scope is the hint (a worker made by a pinned worker differs too, so it is only a
 * hint): the process's own mask is read, and when it no longer holds the JVM scope and every
 * thread qv4j did not place is inside it (the whole process was narrowed, not one thread the
 * application bound), every pool is planned again inside it. Said once per change.
 */
final class AllowedSet {

    private AllowedSet() {
    }

    /**
     * The environment to place the calling worker, whose inherited mask is {@code inherited}, with:
     * {@code e}, or one re-planned inside the process's allowed set now.
     */
    static Env check(Placer placer, Env e, CpuSet inherited) {
        if (inherited == null || e.topology() == null || inherited.equals(e.jvm())) return e;
        CpuSet process = ProcessAffinity.processMask();
        if (process == null || process.containsAll(e.jvm())) return e;
        PoolRegistry registry = placer.registry();
        Set<Long> placed = new HashSet<>();
        synchronized (registry.lock) {
            for (Worker w : registry.liveWorkers().values()) placed.add(w.tid);
        }
        if (!ProcessAffinity.allInside(process, placed)) return e;
        CpuSet inside = e.jvm().and(process);
        CpuSet jvm = inside.isEmpty() ? process : inside;
        Env now = new Env(e.topology(), jvm, e.binder(), e.problem(), e.node(), e.live());
        boolean moved;
        synchronized (registry.lock) {
            if (placer.env() != e) return placer.env(); // another worker re-planned first
            placer.ready(now);
            registry.allowedChange = "pus " + e.jvm() + " -> " + jvm + " (process allowed set " + process + ")";
            moved = replanAll(placer, now);
            Log.info("the process's allowed set changed to pus " + process + " (taskset?): pools planned again inside pus " + jvm
                    + " (was " + e.jvm() + ")");
        }
        for (Pool p : registry.pools()) if (p.planned) placer.events().planned(p);
        if (moved) placer.requestCatchUp();
        return now;
    }

    /** Plans every planned pool again for {@code e}; running workers move at their next task. True when some must move. Under the lock. */
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
            if (p.pinned) moved |= planner.moveWorkers(p);
        }
        return moved;
    }
}
