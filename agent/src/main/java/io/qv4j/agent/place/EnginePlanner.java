package io.qv4j.agent.place;

import io.qv4j.agent.config.Options;
import io.qv4j.agent.config.Policy;
import io.qv4j.api.Scope;
import io.qv4j.api.Split;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The split engine of the api module: {@code Scope.of(t, universe).splitAt(type).tasks(T, color)}.
 * Plans are pure functions of their inputs, so the last few are remembered: applications that
 * make pools of the same shape again and again pay for planning once.
 */
public final class EnginePlanner implements Planner {

    /**
     * A plan's inputs. A class, not a record: a record's hashCode/equals bootstrap through
     * invokedynamic, which costs milliseconds on the first pool of a cold JVM.
     */
    private static final class Key {
        final Topology topology;
        final CpuSet universe;
        final Policy.Resolved policy;
        final int tasks;

        Key(Topology topology, CpuSet universe, Policy.Resolved policy, int tasks) {
            this.topology = topology;
            this.universe = universe;
            this.policy = policy;
            this.tasks = tasks;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Key k)) return false;
            Policy.Resolved a = policy, b = k.policy;
            return topology == k.topology && tasks == k.tasks && universe.equals(k.universe)
                    && a.splitAt() == b.splitAt() && a.split() == b.split() && a.color() == b.color() && a.ordinal() == b.ordinal();
        }

        @Override
        public int hashCode() {
            return ((System.identityHashCode(topology) * 31 + universe.hashCode()) * 31 + tasks) * 31
                    + policy.split() * 7 + policy.ordinal() + (policy.splitAt() == null ? 0 : policy.splitAt().ordinal() * 131);
        }
    }

    private static final int REMEMBERED = 64;

    private final Map<Key, Plan> recent = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Plan> eldest) {
            return size() > REMEMBERED;
        }
    };

    @Override
    public Plan plan(Topology topology, CpuSet universe, Options policy, int tasks) {
        return plan(topology, universe, Policy.Resolved.of(policy), tasks);
    }

    @Override
    public Plan plan(Topology topology, CpuSet universe, Policy.Resolved policy, int tasks) {
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

    private static Plan compute(Topology topology, CpuSet universe, Policy.Resolved policy, int tasks) {
        Split split = split(topology, universe, policy);
        return new Plan(split.pieces().size(), Collections.unmodifiableList(perTask(split, policy, tasks)));
    }

    /** The pieces a policy cuts {@code universe} into. */
    public static Split split(Topology topology, CpuSet universe, Policy.Resolved policy) {
        Scope scope = Scope.of(topology, universe);
        return policy.split() > 0 ? scope.split(policy.split()) : scope.splitAt(policy.splitAt());
    }

    /** Each of {@code tasks} tasks' cpuset under the policy's color or ordinal (null: none). */
    public static List<CpuSet> perTask(Split split, Policy.Resolved policy, int tasks) {
        List<Optional<Scope>> each;
        if (policy.ordinal() >= 0) {
            int[] ord = new int[tasks];
            Arrays.fill(ord, policy.ordinal());
            each = split.tasksByOrdinal(ord);
        } else {
            each = split.tasks(tasks, policy.color());
        }
        List<CpuSet> out = new ArrayList<>(tasks);
        for (Optional<Scope> s : each) out.add(s.isPresent() ? s.get().cpuset() : null);
        return out;
    }
}
