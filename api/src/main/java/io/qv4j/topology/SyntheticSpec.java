package io.qv4j.topology;

/** Builds a topology from an hwloc-style synthetic spec: {@code package:2 numa:2 l3:1 core:8 pu:2 gpu:1 nic:1}. */
public final class SyntheticSpec {

    private SyntheticSpec() {
    }

    /** @throws TopologyException naming the spec and the bad word */
    public static Topology parse(String spec) {
        throw new TopologyException("TODO");
    }
}
