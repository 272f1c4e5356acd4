package io.qv4j.agent.place;

import io.qv4j.agent.config.Options;
import io.qv4j.agent.config.Policy;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;

import java.util.List;

/** Cuts a universe into pieces by the policy and maps a pool's tasks onto them. */
public interface Planner {

    /**
     * @param pieces  how many pieces the universe was cut into
     * @param perTask one cpuset per task (slot); null = no piece for that task
     */
    record Plan(int pieces, List<CpuSet> perTask) {
    }

    Plan plan(Topology topology, CpuSet universe, Options policy, int tasks);

    /** The same for a pool's own policy (a rule or an annotation resolved against the options). */
    Plan plan(Topology topology, CpuSet universe, Policy.Resolved policy, int tasks);
}
