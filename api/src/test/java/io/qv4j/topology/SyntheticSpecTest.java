package io.qv4j.topology;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SyntheticSpecTest {

    @Test
    void designExample() {
        String spec = "package:2 numa:2 l3:1 core:8 pu:2 gpu:1 nic:1";
        Topology t = SyntheticSpec.parse(spec);
        assertEquals(spec, t.source());
        assertEquals(CpuSet.range(0, 63), t.online());
        assertEquals(t.online(), t.allowed());
        assertEquals(64, t.pus().size());
        assertEquals(2, t.objects(HwType.PACKAGE).size());
        assertEquals(4, t.numaNodes().size());
        assertEquals(4, t.objects(HwType.L3).size());
        assertEquals(32, t.objects(HwType.CORE).size());
        assertEquals(CpuSet.range(16, 31), t.objects(HwType.PACKAGE).get(0).children().get(1).cpuset());
        assertEquals(CpuSet.of(0, 1), t.objects(HwType.CORE).get(0).cpuset());

        List<Device> gpus = t.devices(HwType.GPU);
        List<Device> nics = t.devices(HwType.NIC);
        assertEquals(4, gpus.size());
        assertEquals(4, nics.size());
        for (int i = 0; i < 4; i++) {
            CpuSet numa = t.numaNodes().get(i).cpuset();
            assertEquals(numa, gpus.get(i).locality(), "gpu " + i);
            assertEquals(numa, nics.get(i).locality(), "nic " + i);
            assertEquals("nic" + i, nics.get(i).name());
        }
        assertEquals("0000:40:00.0", gpus.get(0).pci());
        assertEquals("0000:80:00.0", nics.get(0).pci());
    }

    @Test
    void devicesPerPackageThenPerMachine() {
        Topology t = SyntheticSpec.parse("gpu:2 package:2 core:2");
        assertEquals(4, t.pus().size());
        assertEquals(CpuSet.range(2, 3), t.devices(HwType.GPU).get(3).locality());
        Topology m = SyntheticSpec.parse("core:4 nic:3");
        assertEquals(3, m.devices(HwType.NIC).size());
        assertTrue(m.devices(HwType.NIC).stream().allMatch(d -> d.locality().equals(CpuSet.range(0, 3))));
    }

    @Test
    void missingPuMeansOnePerCoreAndOsIndexesFollowLogicalOrder() {
        Topology t = SyntheticSpec.parse("package:2 l2:2 core:2");
        assertEquals(8, t.pus().size());
        for (int i = 0; i < 8; i++) assertEquals(i, t.pus().get(i).osIndex());
        assertEquals(List.of(CpuSet.range(0, 1), CpuSet.range(2, 3), CpuSet.range(4, 5), CpuSet.range(6, 7)),
                t.objects(HwType.L2).stream().map(HwObject::cpuset).toList());
    }

    @Test
    void manyDevicesGetUniqueSortedIds() {
        Topology t = SyntheticSpec.parse("numa:40 core:1 gpu:2");
        List<Device> gpus = t.devices(HwType.GPU);
        assertEquals(80, gpus.size());
        assertEquals(80, gpus.stream().map(Device::pci).distinct().count());
        assertEquals("0001:40:00.0", gpus.get(64).pci());
        assertEquals(CpuSet.of(39), gpus.get(79).locality());
    }

    @Test
    void bigTopologiesAreFast() {
        assertTimeoutPreemptively(java.time.Duration.ofSeconds(10), () -> {
            Topology a = SyntheticSpec.parse("package:4 numa:2 l3:2 core:128 pu:2");
            assertEquals(4096, a.pus().size());
            Topology b = SyntheticSpec.parse("package:8 numa:2 l3:2 l2:32 core:2 pu:4 gpu:2 nic:1");
            assertEquals(8192, b.pus().size());
            assertEquals(2048, b.objects(HwType.CORE).size());
            assertEquals(32, b.devices(HwType.GPU).size());
            assertEquals(8191, b.pus().get(8191).osIndex());
        });
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "package:2 bogus:2 | bogus:2",
            "package:2 core    | core",
            "pu:0              | pu:0",
            "core:-2           | core:-2",
            "core:x            | core:x",
            "core:99999999999  | core:99999999999",
            "core:2 core:4     | core:4",
            "core:2 package:2  | package:2",
            "gpu:1 nic:1 gpu:2 | gpu:2",
            "machine:1 core:2  | machine:1",
            "package:1024 core:8 pu:2    | pu:2",
    })
    void badWordsAreNamed(String spec, String word) {
        TopologyException e = assertThrows(TopologyException.class, () -> SyntheticSpec.parse(spec));
        assertTrue(e.getMessage().contains("'" + word + "'"), e.getMessage());
        assertTrue(e.getMessage().contains(spec.strip()), e.getMessage());
    }

    @Test
    void emptySpec() {
        TopologyException e = assertThrows(TopologyException.class, () -> SyntheticSpec.parse("  "));
        assertTrue(e.getMessage().contains("empty"), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "package:1000 core:1000      | core:1000",
            "package:2 core:4097         | core:4097",
            "numa:4 core:1024 pu:4       | pu:4",
            "pu:2147483647               | pu:2147483647",
    })
    void tooManyPusAreRefusedBeforeAnythingIsBuilt(String spec, String word) {
        TopologyException e = assertTimeoutPreemptively(Duration.ofSeconds(1), () -> assertThrows(TopologyException.class, () -> SyntheticSpec.parse(spec)));
        assertTrue(e.getMessage().contains("'" + word + "'") && e.getMessage().contains("more than " + SyntheticSpec.MAX_PUS + " PUs"), e.getMessage());
    }
}
