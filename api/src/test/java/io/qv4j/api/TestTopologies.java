package io.qv4j.api;

import io.qv4j.topology.HwType;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;
import io.qv4j.topology.TopologyBuilder;

/** Small regular machines built directly (no synthetic-spec parser needed). */
final class TestTopologies {

    private TestTopologies() {
    }

    /** {@code packages × cores × pus}, PUs numbered in logical order: core c holds PUs {@code c·pus ..}. */
    static Topology machine(int packages, int coresPerPackage, int pusPerCore) {
        int pusPerPackage = coresPerPackage * pusPerCore;
        TopologyBuilder b = new TopologyBuilder("test:" + packages + "x" + coresPerPackage + "x" + pusPerCore)
                .online(CpuSet.range(0, packages * pusPerPackage - 1));
        for (int p = 0; p < packages; p++) {
            b.add(HwType.PACKAGE, p, CpuSet.range(p * pusPerPackage, (p + 1) * pusPerPackage - 1));
        }
        for (int c = 0; c < packages * coresPerPackage; c++) {
            b.add(HwType.CORE, c, CpuSet.range(c * pusPerCore, (c + 1) * pusPerCore - 1));
        }
        return b.build();
    }
}
