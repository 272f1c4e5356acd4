package io.qv4j.topology;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TopologyBuilderTest {

    /** Two packages of two cores with two PUs each, numbered like Intel: core c has PUs c and c+4. */
    private static TopologyBuilder twoPackages() {
        TopologyBuilder b = new TopologyBuilder("test").online(CpuSet.range(0, 7));
        b.add(HwType.PACKAGE, 0, CpuSet.parse("0-1,4-5")).add(HwType.PACKAGE, 1, CpuSet.parse("2-3,6-7"));
        for (int c = 0; c < 4; c++) {
            b.add(HwType.CORE, c, CpuSet.of(c, c + 4));
            b.add(HwType.L2, c, CpuSet.of(c, c + 4)); // same PUs as the core: the cache is the parent
        }
        b.add(HwType.L3, 0, CpuSet.parse("0-1,4-5")).add(HwType.L3, 0, CpuSet.parse("0-1,4-5")); // reported twice
        b.add(HwType.L3, 1, CpuSet.parse("2-3,6-7"));
        return b;
    }

    @Test
    void objectsNestByCpusetWithTheOuterTypeAboveWhenCpusetsAreEqual() {
        Topology t = twoPackages().build();
        HwObject pu4 = t.pu(4);
        HwObject core = pu4.parent();
        assertEquals(HwType.CORE, core.type());
        assertEquals(HwType.L2, core.parent().type());
        assertEquals(HwType.L3, core.parent().parent().type());
        assertEquals(HwType.PACKAGE, core.parent().parent().parent().type());
        assertSame(t.root(), core.parent().parent().parent().parent());
    }

    @Test
    void duplicateReportsOfOneObjectAreMerged() {
        assertEquals(2, twoPackages().build().objects(HwType.L3).size());
    }

    @Test
    void logicalOrderIsDepthFirstThroughTheTree() {
        Topology t = twoPackages().build();
        List<Integer> order = t.pus().stream().map(HwObject::osIndex).toList();
        assertEquals(List.of(0, 4, 1, 5, 2, 6, 3, 7), order);
        assertEquals(3, t.pu(5).logicalIndex());
        assertEquals(1, t.objects(HwType.PACKAGE).get(1).logicalIndex());
    }

    @Test
    void offlinePusAreDroppedAndObjectsWithoutOnlinePusVanish() {
        Topology t = twoPackages().online(CpuSet.parse("0-1,4-5")).build();
        assertEquals(1, t.objects(HwType.PACKAGE).size());
        assertEquals(CpuSet.parse("0-1,4-5"), t.objects(HwType.PACKAGE).get(0).cpuset());
        assertNull(t.pu(2));
    }

    @Test
    void memoryOnlyNumaNodesAreKeptButNotInTheTree() {
        Topology t = twoPackages().numaNode(0, CpuSet.range(0, 7), 1L << 30).numaNode(3, CpuSet.empty(), 1L << 34).build();
        assertEquals(List.of(0, 3), t.numaNodes().stream().map(HwObject::osIndex).toList());
        assertEquals(1, t.objects(HwType.NUMANODE).size());
        assertEquals(1L << 34, t.numaNodes().get(1).memoryBytes());
    }

    @Test
    void numaNodesSharingPusAppearOnceInTheTree() {
        Topology t = twoPackages().numaNode(0, CpuSet.range(0, 7), 0).numaNode(1, CpuSet.range(0, 7), 0).build();
        assertEquals(2, t.numaNodes().size());
        assertEquals(1, t.objects(HwType.NUMANODE).size());
        assertEquals(0, t.objects(HwType.NUMANODE).get(0).osIndex());
    }

    @Test
    void numaNodeSpanningPackagesSitsAboveThem() {
        Topology t = twoPackages().numaNode(0, CpuSet.range(0, 7), 0).build();
        assertEquals(HwType.NUMANODE, t.objects(HwType.PACKAGE).get(0).parent().type());
    }

    @Test
    void allowedIsCutToOnlineAndDefaultsToIt() {
        assertEquals(CpuSet.range(0, 7), twoPackages().build().allowed());
        assertEquals(CpuSet.of(3), twoPackages().allowed(CpuSet.of(3, 9)).build().allowed());
    }

    @Test
    void noOnlinePuOrNoAllowedPuIsAnErrorNamingTheSource() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new TopologyBuilder("spec x").build());
        assertTrue(e.getMessage().contains("spec x"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> twoPackages().allowed(CpuSet.of(12)).build());
        assertTrue(e.getMessage().contains("12"), e.getMessage());
    }

    @Test
    void devicesAreSortedAndUnknownLocalityIsTheWholeMachine() {
        Topology t = twoPackages()
                .device(new Device(HwType.NIC, "0000:02:00.0", "eth1", CpuSet.parse("0-1,4-5")))
                .device(new Device(HwType.NIC, "0000:03:00.0", "eth0", CpuSet.empty()))
                .device(new Device(HwType.GPU, "0000:3b:00.0", "", CpuSet.parse("2-3,6-7")))
                .build();
        assertEquals(List.of("0000:3b:00.0", "eth0", "eth1"),
                t.devices().stream().map(d -> d.type() == HwType.GPU ? d.pci() : d.name()).toList());
        assertEquals(t.online(), t.devices(HwType.NIC).get(0).locality());
    }

    @Test
    void buildsTopologiesOfEightThousandPus() {
        TopologyBuilder b = new TopologyBuilder("big").online(CpuSet.range(0, 8191));
        for (int p = 0; p < 8; p++) b.add(HwType.PACKAGE, p, CpuSet.range(p * 1024, p * 1024 + 1023));
        for (int c = 0; c < 4096; c++) b.add(HwType.CORE, c, CpuSet.range(2 * c, 2 * c + 1));
        Topology t = b.build();
        assertEquals(8192, t.pus().size());
        assertEquals(4096, t.objects(HwType.CORE).size());
        assertEquals(8191, t.pus().get(8191).osIndex());
    }

    @Test
    void nicsSortByNameWithTrailingNumbersInNumericOrder() {
        TopologyBuilder b = twoPackages();
        for (String n : List.of("nic10", "nic2", "eth1", "nic1", "ib0")) {
            b.device(new Device(HwType.NIC, "", n, CpuSet.range(0, 7)));
        }
        assertEquals(List.of("eth1", "ib0", "nic1", "nic2", "nic10"), b.build().devices(HwType.NIC).stream().map(Device::name).toList());
    }
}
