package io.qv4j.api;

import io.qv4j.topology.HwType;
import io.qv4j.split.TestTopologies;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Device;
import io.qv4j.topology.Topology;
import io.qv4j.topology.TopologyBuilder;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The worked examples of DESIGN.md §4.1–§4.3, one test per rule. */
class SplitRulesTest {

    /** {@code package:2 core:4 pu:2}: PU 2c, 2c+1 on core c. */
    private static final Topology P2C4T2 = TestTopologies.synthetic("package:2 core:4 pu:2");

    private static String cpus(List<Scope> scopes) {
        return scopes.stream().map(s -> "{" + s.cpuset() + "}").collect(Collectors.joining(" "));
    }

    private static String cpusOf(List<Optional<Scope>> tasks) {
        return tasks.stream().map(t -> t.map(s -> "{" + s.cpuset() + "}").orElse("-")).collect(Collectors.joining(" "));
    }

    /** Cores of single-core results on P2C4T2, as "0,2,4". */
    private static String cores(List<Optional<Scope>> tasks) {
        return tasks.stream().map(t -> String.valueOf(t.orElseThrow().cpuset().first() / 2)).collect(Collectors.joining(","));
    }

    private static List<String> pci(Optional<Scope> s) {
        return s.orElseThrow().devices().stream().map(Device::pci).collect(Collectors.toList());
    }

    // §4.1 Regular split

    @Test
    void regularSplit_extrasGoToEarliestPieces_whenNoArrangementCutsAHigherBoundary() {
        Split s = Scope.of(P2C4T2).split(3);
        assertEquals(HwType.CORE, s.unit());
        assertEquals("{0-5} {6-11} {12-15}", cpus(s.pieces()));
    }

    @Test
    void regularSplit_cutsFallOnTheHighestBoundary() {
        assertEquals("{0-7} {8-15}", cpus(Scope.of(P2C4T2).split(2).pieces()));
    }

    @Test
    void regularSplit_countsPUsWhenMorePiecesThanCores_andCutsNoMoreCoresThanNeeded() {
        Split s = Scope.of(P2C4T2).split(12);
        assertEquals(HwType.PU, s.unit());
        assertEquals("{0-1} {2-3} {4-5} {6-7} {8} {9} {10} {11} {12} {13} {14} {15}", cpus(s.pieces()));
    }

    @Test
    void regularSplit_piecesDifferByAtMostOneUnit_andCutAtTheHighestBoundaryEvenIfExtrasGoLater() {
        // 6 cores in 2 packages of 3, 4 pieces of 1 or 2 cores: sizes 2,1,2,1 cut at the package
        // boundary (levels 1+5+1 = 7); the extras-first 2,2,1,1 would cut only cores (1+1+1).
        Topology t = TestTopologies.synthetic("package:2 core:3 pu:1");
        assertEquals("{0-1} {2} {3-4} {5}", cpus(Scope.of(t).split(4).pieces()));
    }

    @Test
    void regularSplit_coreUnitPieceHoldsAllAllowedPUsOfItsCores() {
        Topology t = TestTopologies.synthetic("package:1 core:4 pu:4", CpuSet.parse("0-2,5,8-15"));
        // cores: {0-2} {5} {8-11} {12-15}; 2 pieces of 2 cores, SMT siblings together
        assertEquals("{0-2,5} {8-15}", cpus(Scope.of(t).split(2).pieces()));
    }

    @Test
    void regularSplit_deviceGoesToThePieceHoldingMostOfItsLocality_tiesToTheLowerPiece() {
        Topology t = new TopologyBuilder("test").online(CpuSet.range(0, 7))
                .add(HwType.PACKAGE, 0, CpuSet.range(0, 7))
                .device(new Device(HwType.GPU, "0000:01:00.0", "", CpuSet.parse("2-7")))  // 2 in piece 0, 4 in piece 1
                .device(new Device(HwType.GPU, "0000:02:00.0", "", CpuSet.parse("2-5")))  // 2 and 2: lower piece
                .device(new Device(HwType.NIC, "0000:03:00.0", "eth0", CpuSet.parse("0-7")))
                .build();
        Split s = Scope.of(t).split(2);
        assertEquals(List.of("0000:02:00.0", "0000:03:00.0"), s.pieces().get(0).devices().stream().map(Device::pci).toList());
        assertEquals(List.of("0000:01:00.0"), s.pieces().get(1).devices().stream().map(Device::pci).toList());
    }

    @Test
    void splitsCutInLogicalOrder_notInOsNumbering() {
        // Intel-style numbering: core c holds PUs c and c+4
        TopologyBuilder b = new TopologyBuilder("test").online(CpuSet.range(0, 7)).add(HwType.PACKAGE, 0, CpuSet.range(0, 7));
        for (int c = 0; c < 4; c++) b.add(HwType.CORE, c, CpuSet.of(c, c + 4));
        Topology t = b.build();
        assertEquals("{0-1,4-5} {2-3,6-7}", cpus(Scope.of(t).split(2).pieces()));
        assertEquals("{0,4} {1,5} {2} {6} {3} {7}", cpus(Scope.of(t).split(6).pieces()));
        assertEquals("{0} {1} {2} {3}", cpusOf(Scope.of(t).splitAt(HwType.PU).tasks(4, Color.SPREAD)));
    }

    // §4.2 splitAt

    @Test
    void splitAt_onePiecePerObjectWithAllowedPUs_cutToTheScope() {
        Topology t = TestTopologies.synthetic("package:2 core:4 pu:2", CpuSet.parse("1-3,12-15"));
        Split s = Scope.of(t).splitAt(HwType.CORE);
        assertEquals("{1} {2-3} {12-13} {14-15}", cpus(s.pieces()));
        assertEquals("{1-3} {12-15}", cpus(Scope.of(t).splitAt(HwType.PACKAGE).pieces()));
    }

    @Test
    void splitAtGpu_devicesWithEqualLocalityCutItByTheRegularRule() {
        Topology t = TestTopologies.synthetic("package:2 numa:1 core:4 pu:2 gpu:2");
        Split s = Scope.of(t).splitAt(HwType.GPU);
        assertEquals("{0-3} {4-7} {8-11} {12-15}", cpus(s.pieces()));
        for (int i = 0; i < 4; i++) {
            assertEquals(List.of(String.format("0000:%02x:00.0", 0x10 + i)),
                    s.pieces().get(i).devices(HwType.GPU).stream().map(Device::pci).toList());
        }
    }

    @Test
    void splitAtGpu_leavesOutADeviceWithNoAllowedPUInItsLocality() {
        Topology t = TestTopologies.synthetic("package:2 numa:1 core:4 pu:2 gpu:1", CpuSet.parse("0-7"));
        Split s = Scope.of(t).splitAt(HwType.GPU);
        assertEquals("{0-7}", cpus(s.pieces()));
        assertEquals(List.of("0000:10:00.0"), s.pieces().get(0).devices().stream().map(Device::pci).toList());
    }

    @Test
    void splitAtNuma_skipsMemoryOnlyNodes() {
        Topology t = new TopologyBuilder("test").online(CpuSet.range(0, 7))
                .numaNode(0, CpuSet.range(0, 3), 1L << 30)
                .numaNode(1, CpuSet.empty(), 1L << 30) // memory only (CXL, HBM)
                .numaNode(2, CpuSet.range(4, 7), 1L << 30)
                .build();
        Split s = Scope.of(t).splitAt(HwType.NUMANODE);
        assertEquals("{0-3} {4-7}", cpus(s.pieces()));
    }

    // §4.3 Mapping

    @Test
    void spread_fewerTasksThanPieces_goAsFarApartAsPossible_hierarchically() {
        Split cores = Scope.of(P2C4T2).splitAt(HwType.CORE);
        assertEquals("0,2,4", cores(cores.tasks(3, Color.SPREAD)));
        assertEquals("0,1,2,4,6", cores(cores.tasks(5, Color.SPREAD)));
        assertEquals("0,4", cores(cores.tasks(2, Color.SPREAD)));
    }

    @Test
    void spread_moreTasksThanPieces_isCyclic() {
        Split packages = Scope.of(P2C4T2).splitAt(HwType.PACKAGE);
        assertEquals("{0-7} {8-15} {0-7} {8-15}", cpusOf(packages.tasks(4, Color.SPREAD)));
    }

    @Test
    void packed_taskIOnPieceI_andBlocksWhenMoreTasksThanPieces() {
        Split cores = Scope.of(P2C4T2).splitAt(HwType.CORE);
        assertEquals("0,1,2", cores(cores.tasks(3, Color.PACKED)));
        assertEquals("0,0,1,1,2,3,4,5,6,7", cores(cores.tasks(10, Color.PACKED)));
        assertEquals("{0-7} {0-7} {8-15} {8-15}", cpusOf(Scope.of(P2C4T2).splitAt(HwType.PACKAGE).tasks(4, Color.PACKED)));
    }

    @Test
    void auto_usesEveryPiece_inContiguousBlocksPlacedLikeARegularSplit() {
        Split cores = Scope.of(P2C4T2).splitAt(HwType.CORE);
        assertEquals("{0-5} {6-11} {12-15}", cpusOf(cores.tasks(3, Color.AUTO)));
        List<Split.Assignment> a = cores.assign(3, Color.AUTO);
        assertEquals(List.of(0, 3, 6), a.stream().map(Split.Assignment::firstPiece).toList());
        assertEquals(List.of(3, 3, 2), a.stream().map(Split.Assignment::pieceCount).toList());
    }

    @Test
    void auto_moreTasksThanPieces_isPacked() {
        Split packages = Scope.of(P2C4T2).splitAt(HwType.PACKAGE);
        assertEquals(cpusOf(packages.tasks(5, Color.PACKED)), cpusOf(packages.tasks(5, Color.AUTO)));
    }

    @Test
    void ordinal_everyTaskOnThatPiece() {
        Split s = Scope.of(P2C4T2).split(2);
        assertEquals("8-15", s.task(0, 3, 1).orElseThrow().cpuset().toString());
        assertEquals("{0-7} - {8-15}", cpusOf(s.tasksByOrdinal(new int[] {0, -1, 1})));
    }

    @Test
    void undefined_givesNoPiece() {
        Split s = Scope.of(P2C4T2).split(2);
        assertEquals(Optional.empty(), s.task(1, 3, Color.UNDEFINED));
        assertEquals(-1, s.assign(2, Color.UNDEFINED).get(0).firstPiece());
    }

    @Test
    void keysOrderTasks_likeMpiCommSplit_ranksBreakTies() {
        Split cores = Scope.of(P2C4T2).splitAt(HwType.CORE);
        // keys 5,5,1: task 2 comes first, then 0, then 1
        assertEquals("1,2,0", cores(cores.tasks(new int[] {5, 5, 1}, Color.PACKED)));
    }

    @Test
    void devicesFollowTheirPiece_dealtRoundRobinAmongTasksSharingIt() {
        Topology t = TestTopologies.synthetic("package:2 numa:1 core:4 pu:2 gpu:2");
        Split numa = Scope.of(t).splitAt(HwType.NUMANODE);
        // 4 tasks on 2 pieces with 2 GPUs each: each task its own GPU
        List<Optional<Scope>> four = numa.tasks(4, Color.PACKED);
        assertEquals(List.of("0000:10:00.0"), pci(four.get(0)));
        assertEquals(List.of("0000:11:00.0"), pci(four.get(1)));
        assertEquals(List.of("0000:12:00.0"), pci(four.get(2)));
        // 3 tasks on one piece with 2 GPUs: the third shares the first GPU
        List<Optional<Scope>> three = numa.tasksByOrdinal(new int[] {0, 0, 0});
        assertEquals(List.of("0000:10:00.0"), pci(three.get(0)));
        assertEquals(List.of("0000:11:00.0"), pci(three.get(1)));
        assertEquals(List.of("0000:10:00.0"), pci(three.get(2)));
        // one task per piece keeps all of the piece's devices
        assertEquals(List.of("0000:10:00.0", "0000:11:00.0"), pci(numa.tasks(2, Color.SPREAD).get(0)));
    }

    // §4.4

    @Test
    void scope_toStringCountsNumaCoresAndDevices() {
        Topology t = TestTopologies.synthetic("package:2 numa:1 core:2 pu:2 gpu:1");
        Scope first = Scope.of(t).splitAt(HwType.NUMANODE).pieces().get(0);
        assertEquals("scope[numa:1 cores:2 pus:0-3 gpus:1]", first.toString());
    }

    @Test
    void scope_createTakesTheFirstNObjects_countCountsThem() {
        Topology t = TestTopologies.synthetic("package:2 numa:1 core:4 pu:2 gpu:1", CpuSet.parse("1-15"));
        Scope all = Scope.of(t);
        assertEquals(8, all.count(HwType.CORE));
        assertEquals(15, all.count(HwType.PU));
        assertEquals(2, all.count(HwType.GPU));
        Scope util = all.create(HwType.CORE, 2);
        assertEquals("1-3", util.cpuset().toString());
        assertEquals(1, util.devices(HwType.GPU).size());
        assertEquals("8-15", all.create(HwType.GPU, 2).cpuset().and(CpuSet.range(8, 15)).toString());
        assertTrue(all.create(HwType.PACKAGE, 1).cpuset().equals(CpuSet.parse("1-7")));
    }

    @Test
    void shares_contiguousUnitsProportionalToMemberCounts_emptyShareTakesItsNeighbours() {
        Scope all = Scope.of(P2C4T2);
        assertEquals("{0-3} {4-15}", cpus(all.shares(new int[] {1, 3})));
        // 4 classes on 2 cores: ⌈1·2/4⌉=1, ⌈2·2/4⌉−1=0 (shares class 0's), ...
        Topology two = TestTopologies.synthetic("package:1 core:2 pu:1");
        List<Scope> s = Scope.of(two).shares(new int[] {16, 16, 16, 16});
        assertEquals("{0} {0} {1} {1}", cpus(s));
        assertTrue(s.get(0) == s.get(1));
    }
}
