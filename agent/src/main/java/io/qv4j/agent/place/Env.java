package io.qv4j.agent.place;

import io.qv4j.agent.bind.Binder;
import io.qv4j.agent.node.Node;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;

/**
 * What placement needs, found in the background after start-up.
 *
 * @param topology  the machine (live, or the dry-run topology); null when it could not be read
 * @param jvm       the JVM's scope: the PUs this process may use
 * @param binder    binds the calling thread (chosen once for the bind mode)
 * @param problem   why there is no topology, for the report
 * @param node      this JVM among others on the node (local rank, claims, quota); null = none of that
 * @param live      the topology is the machine this JVM runs on (not a dry-run or test topology):
 *                  threads' kernel masks can be compared with it
 * @param exclusive the PUs this JVM's exclusive pools hold (DESIGN.md §7.2): no other thread of the application runs there
 */
public record Env(Topology topology, CpuSet jvm, Binder binder, String problem, Node node, boolean live, CpuSet exclusive) {

    public Env(Topology topology, CpuSet jvm, Binder binder, String problem, Node node, boolean live) {
        this(topology, jvm, binder, problem, node, live, CpuSet.empty());
    }

    /** The same with these exclusive PUs. */
    Env withExclusive(CpuSet pus) {
        return new Env(topology, jvm, binder, problem, node, live, pus);
    }

    /** The same with another JVM scope; exclusive PUs outside it are gone. */
    Env withJvm(CpuSet scope) {
        return new Env(topology, scope, binder, problem, node, live, exclusive.and(scope));
    }

    /**
     * Where the application's threads other than exclusive workers run: the JVM scope less the
     * exclusive PUs (never empty: an exclusive pool that would leave nothing is refused).
     */
    public CpuSet rest() {
        if (jvm == null || exclusive.isEmpty()) return jvm;
        CpuSet rest = jvm.andNot(exclusive);
        return rest.isEmpty() ? jvm : rest;
    }

    /**
     * Where ordinary pools are planned: {@link #rest()} less the PUs the kernel isolates from its
     * balancing, while it has others (DESIGN.md §7.2). A worker given a piece of several isolated
     * PUs would stay on the one it first ran on; users isolate PUs to hand them out one by one.
     */
    public CpuSet ordinary() {
        CpuSet rest = rest();
        if (topology == null || rest == null) return rest;
        CpuSet notIsolated = rest.andNot(topology.isolated());
        return notIsolated.isEmpty() ? rest : notIsolated;
    }
}
