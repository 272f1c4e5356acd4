package io.qv4j.agent.place;

import io.qv4j.topology.CpuSet;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.HwType;
import io.qv4j.topology.Topology;

import java.util.ArrayList;
import java.util.List;

/**
 * Which cores an exclusive pool's workers get (DESIGN.md §7.2), a pure choice: one unit per
 * worker, kernel-isolated PUs first (one PU each: the kernel does not balance there), then whole
 * cores (the PUs of a core the JVM may use: SMT siblings stay idle), the cores no other pool of
 * this JVM is pinned to first, then from the last core back (the first cores are where the
 * kernel, interrupts and the rest of the JVM are). Never a PU another JVM claims or another
 * exclusive pool of this JVM holds; never so many that the rest of the JVM keeps fewer than
 * {@link #MIN_REST_PUS} PUs it can balance on that no other JVM claims (so that of two JVMs that
 * ask for the last free cores, the second is told no rather than crowd the first's).
 */
final class ExclusiveCores {

    /** The rest of the JVM (its other threads, GC and JIT where they share) keeps at least this many non-isolated PUs. */
    static final int MIN_REST_PUS = 1;

    /** The units chosen, or why none were. */
    record Choice(List<CpuSet> units, String refused) {

        CpuSet union() {
            CpuSet u = CpuSet.empty();
            for (CpuSet c : units) u = u.or(c);
            return u;
        }
    }

    private ExclusiveCores() {
    }

    /**
     * @param jvm       the JVM scope
     * @param claimed   PUs other JVMs (and OpenHFT lock holders) claim
     * @param exclusive PUs other exclusive pools of this JVM hold
     * @param held      PUs other pinned pools of this JVM hold: left to them while other cores are free
     * @param tasks     the pool's workers
     */
    static Choice choose(Topology t, CpuSet jvm, CpuSet claimed, CpuSet exclusive, CpuSet held, int tasks) {
        CpuSet taken = claimed.or(exclusive);
        List<CpuSet> units = new ArrayList<>();
        for (int pu : jvm.and(t.isolated()).andNot(taken).toArray()) units.add(CpuSet.of(pu));
        List<CpuSet> free = new ArrayList<>();
        List<CpuSet> busy = new ArrayList<>();
        List<HwObject> cores = t.objects(HwType.CORE).isEmpty() ? t.pus() : t.objects(HwType.CORE);
        for (int i = cores.size() - 1; i >= 0; i--) {
            CpuSet unit = cores.get(i).cpuset().and(jvm);
            if (unit.isEmpty() || unit.intersects(taken) || unit.intersects(t.isolated())) continue;
            (unit.intersects(held) ? busy : free).add(unit);
        }
        units.addAll(free);
        units.addAll(busy);
        if (tasks < 1) return new Choice(List.of(), "it has no fixed number of workers");
        if (units.size() < tasks) {
            return new Choice(List.of(), tasks + " workers want a core each and " + units.size() + (units.size() == 1 ? " is" : " are")
                    + " free of other JVMs' claims and other exclusive pools");
        }
        Choice c = new Choice(List.copyOf(units.subList(0, tasks)), null);
        CpuSet rest = jvm.andNot(taken).andNot(c.union()).andNot(t.isolated());
        if (rest.cardinality() < MIN_REST_PUS) {
            return new Choice(List.of(), "it would leave the rest of the JVM " + rest.cardinality() + " PUs free of other JVMs' claims to run on (at least "
                    + MIN_REST_PUS + " needed)");
        }
        return c;
    }
}
