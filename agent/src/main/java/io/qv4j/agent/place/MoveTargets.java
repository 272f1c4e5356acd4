package io.qv4j.agent.place;

import io.qv4j.agent.load.PuLoad;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.HwType;
import io.qv4j.topology.Topology;

import java.util.List;

/** Where a contended worker may go, and whether floating would serve it better (DESIGN.md §7.1): the watcher's pure judgements. */
final class MoveTargets {

    private MoveTargets() {
    }

    /**
     * At a quick look, the margin by which another piece must be less busy: in the first half second
     * after a pin the other PU carries the start-up of a JVM started beside this one (its compiler
     * threads: 22-40 % of a PU here), which passes, while the worker shares its own PU with that
     * JVM's worker (others 45-55 %, itself waiting half the time), which does not. With the
     * period's margin such pairs stayed together past the quick looks.
     */
    static final double QUICK_MARGIN = 0.10;

    /**
     * Whether a worker on {@code here} would wait less on {@code c}: others leave {@code c} idle, or
     * keep it at least {@code margin} less busy ({@link PuLoad#BUSY} at a period, {@link #QUICK_MARGIN}
     * at a quick look). The second: a host whose background keeps every PU 15 % busy has no idle
     * PU, yet a worker beside a spinning neighbour gains by leaving.
     */
    static boolean roomier(PuLoad load, CpuSet c, CpuSet here, double margin) {
        double there = load.mean(c);
        return there <= PuLoad.IDLE || there <= load.mean(here) - margin;
    }

    /**
     * Whether the kernel could do better for {@code w} than its pin: some PU of its pool's scope
     * carries at least {@link PuLoad#BUSY} less of others' load, or it waited more than half the
     * period (more than one other thread wants its PU). Beside another JVM's pinned worker with that
     * JVM's compiler threads on the one PU left, it could not: it stays.
     */
    static boolean floatingHelps(Worker w, Env e, PuLoad load) {
        if (w.waited > 0.5) return true;
        double here = load.mean(w.cpuset);
        for (int pu : PoolPlanner.scopeOf(w.pool, e).toArray()) if (load.of(pu) <= here - PuLoad.BUSY) return true;
        return false;
    }

    /** Of {@code candidates}, the one sharing the most objects of the tree with {@code from}, then the least loaded, then the first. */
    static CpuSet nearest(CpuSet from, List<CpuSet> candidates, PuLoad load, Topology t) {
        CpuSet best = null;
        int bestNear = -1;
        double bestLoad = 2;
        for (CpuSet c : candidates) {
            int near = 0;
            for (HwType type : new HwType[] {HwType.PACKAGE, HwType.NUMANODE, HwType.L3, HwType.L2, HwType.CORE}) {
                for (HwObject o : t.objects(type)) {
                    if (o.cpuset().containsAll(c) && o.cpuset().containsAll(from)) {
                        near++;
                        break;
                    }
                }
            }
            double l = load.mean(c);
            if (near > bestNear || near == bestNear && l < bestLoad) {
                best = c;
                bestNear = near;
                bestLoad = l;
            }
        }
        return best;
    }
}
