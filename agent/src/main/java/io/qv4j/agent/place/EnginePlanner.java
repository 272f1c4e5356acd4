package io.qv4j.agent.place;

import io.qv4j.api.PlacementSpec;
import io.qv4j.api.Scope;
import io.qv4j.api.Split;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The split engine of the api module, {@link PlacementSpec#assign}, with a memory: plans are pure
 * functions of their inputs, so the last few are kept and applications that make pools of the
 * same shape again and again pay for planning once.
 */
public final class EnginePlanner {

    /**
     * @param cut     the pieces the universe was cut into, in the split's order
     * @param perTask one cpuset per task (slot); null = no piece for that task
     */
    public record Plan(List<CpuSet> cut, List<CpuSet> perTask) {

        /** How many pieces the universe was cut into. */
        public int pieces() {
            return cut.size();
        }
    }

    /**
     * A plan's inputs. A class, not a record: a record's hashCode/equals bootstrap through
     * invokedynamic, which costs milliseconds on the first pool of a cold JVM.
     */
    private static final class Key {
        final Topology topology;
        final CpuSet universe;
        final PlacementSpec policy;
        final int tasks;

        Key(Topology topology, CpuSet universe, PlacementSpec policy, int tasks) {
            this.topology = topology;
            this.universe = universe;
            this.policy = policy;
            this.tasks = tasks;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && topology == k.topology && tasks == k.tasks && universe.equals(k.universe) && policy.equals(k.policy);
        }

        @Override
        public int hashCode() {
            return ((System.identityHashCode(topology) * 31 + universe.hashCode()) * 31 + tasks) * 31 + policy.hashCode();
        }
    }

    private static final int REMEMBERED = 64;

    private final Map<Key, Plan> recent = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Plan> eldest) {
            return size() > REMEMBERED;
        }
    };

    /** {@code tasks} tasks under {@code policy} on {@code universe}; throws when the policy cannot cut it. */
    public Plan plan(Topology topology, CpuSet universe, PlacementSpec policy, int tasks) {
        Key key = new Key(topology, universe, policy, tasks);
        synchronized (recent) {
            Plan known = recent.get(key);
            if (known != null) return known;
        }
        Plan plan = compute(topology, universe, policy, tasks);
        synchronized (recent) {
            recent.put(key, plan);
        }
        return plan;
    }

    /**
     * {@code plan}'s tasks mapped by the same policy onto only the pieces {@code pieces} of its cut
     * ({@link IdlePieces}), the cut itself unchanged; the plan as it is where its cut cannot be
     * made again from the union of its pieces.
     */
    static Plan onPieces(Topology topology, Plan plan, PlacementSpec policy, int tasks, int[] pieces) {
        CpuSet union = CpuSet.empty();
        for (CpuSet c : plan.cut()) union = union.or(c);
        Split split = policy.cut(Scope.of(topology, union));
        List<CpuSet> again = new ArrayList<>(split.pieces().size());
        for (Scope piece : split.pieces()) again.add(piece.cpuset());
        if (!again.equals(plan.cut())) return plan;
        List<CpuSet> out = new ArrayList<>(tasks);
        for (Split.Assignment a : policy.assign(split.only(pieces), tasks)) out.add(a.scope().isPresent() ? a.scope().get().cpuset() : null);
        return new Plan(plan.cut(), Collections.unmodifiableList(out));
    }

    /** Uncached: what {@code plan} on the command line shows, piece numbers included. */
    public static Plan compute(Topology topology, CpuSet universe, PlacementSpec policy, int tasks) {
        Split split = policy.cut(Scope.of(topology, universe));
        List<CpuSet> out = new ArrayList<>(tasks);
        for (Split.Assignment a : policy.assign(split, tasks)) out.add(a.scope().isPresent() ? a.scope().get().cpuset() : null);
        List<CpuSet> cut = new ArrayList<>(split.pieces().size());
        for (Scope piece : split.pieces()) cut.add(piece.cpuset());
        return new Plan(Collections.unmodifiableList(cut), Collections.unmodifiableList(out));
    }
}
