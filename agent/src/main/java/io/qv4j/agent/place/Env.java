package io.qv4j.agent.place;

import io.qv4j.agent.bind.Binder;
import io.qv4j.agent.node.Node;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;

/**
 * What placement needs, found in the background after start-up.
 *
 * @param topology the machine (live, or the dry-run topology); null when it could not be read
 * @param jvm      the JVM's scope: the PUs this process may use
 * @param binder   binds the calling thread (chosen once for the bind mode)
 * @param problem  why there is no topology, for the report
 * @param node     this JVM among others on the node (local rank, claims, quota); null = none of that
 * @param live     the topology is the machine this JVM runs on (not a dry-run or test topology):
 *                 threads' kernel masks can be compared with it
 */
public record Env(Topology topology, CpuSet jvm, Binder binder, String problem, Node node, boolean live) {

    /**
     * Where ordinary pools are planned: the JVM scope less the PUs the kernel isolates from its
     * balancing, while it has others (DESIGN.md §7.2). A worker given a piece of several isolated
     * PUs would stay on the one it first ran on; users isolate PUs to hand them out one by one.
     */
    public CpuSet ordinary() {
        if (topology == null || jvm == null) return jvm;
        CpuSet rest = jvm.andNot(topology.isolated());
        return rest.isEmpty() ? jvm : rest;
    }
}
