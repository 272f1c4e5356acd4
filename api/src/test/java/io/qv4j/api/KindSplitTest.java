package io.qv4j.api;

import io.qv4j.split.KindParts;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.HwType;
import io.qv4j.topology.SyntheticSpec;
import io.qv4j.topology.Topology;
import io.qv4j.topology.TopologyBuilder;
import io.qv4j.topology.TopologyException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Placement by CPU kind (DESIGN.md §4.5), on a hybrid laptop built like the fixture's: 6 P-cores of 2 PUs, 8 E-cores. */
class KindSplitTest {

    /** PUs 0-11 on P-cores 0-5 (efficiency 1), PUs 12-19 on E-cores 6-13 (efficiency 0) in two L2 clusters of 4. */
    static final Topology LAPTOP = laptop();

    private static Topology laptop() {
        TopologyBuilder b = new TopologyBuilder("laptop").online(CpuSet.range(0, 19));
        b.add(HwType.PACKAGE, 0, CpuSet.range(0, 19));
        b.add(HwType.L3, 0, CpuSet.range(0, 19));
        for (int c = 0; c < 6; c++) {
            b.add(HwType.L2, c, CpuSet.range(2 * c, 2 * c + 1));
            b.add(HwType.CORE, c, CpuSet.range(2 * c, 2 * c + 1));
        }
        b.add(HwType.L2, 6, CpuSet.range(12, 15));
        b.add(HwType.L2, 7, CpuSet.range(16, 19));
        for (int c = 0; c < 8; c++) b.add(HwType.CORE, 6 + c, CpuSet.of(12 + c));
        b.cpuKind(CpuSet.range(12, 19), Map.of("CoreType", "IntelAtom"), -1);
        b.cpuKind(CpuSet.range(0, 11), Map.of("CoreType", "IntelCore"), -1);
        return b.build();
    }

    private static String plan(PlacementSpec spec, Topology t, int tasks) {
        return spec.plan(Scope.of(t), tasks).stream().map(s -> s.map(x -> x.cpuset().toString()).orElse("-")).collect(Collectors.joining(" "));
    }

    private static final PlacementSpec CORES = PlacementSpec.splitAt(HwType.CORE);

    @Test
    void theKindsAreRankedAsHwlocRanksThem() {
        assertTrue(LAPTOP.hybrid());
        assertEquals(List.of(0, 1), LAPTOP.cpuKinds().stream().map(k -> k.efficiency()).toList());
        assertEquals(1, LAPTOP.pu(0).efficiency());
        assertEquals(0, LAPTOP.pu(12).efficiency());
    }

    @Test
    void aPoolThatFitsTheFastestKindsPiecesIsPlacedThereByDefault() {
        assertEquals("0-1 2-3 6-7 8-9", plan(CORES, LAPTOP, 4));
        assertEquals("0-1 2-3 4-5 6-7 8-9 10-11", plan(CORES, LAPTOP, 6));
    }

    @Test
    void kindAnyCutsTheMachineAsIfAllCoresWereAlike() {
        assertEquals("0-1 6-7 12 16", plan(CORES.kind(Kind.ANY), LAPTOP, 4));
        for (int t = 1; t <= 30; t++) {
            List<Optional<Scope>> plain = Scope.of(LAPTOP).splitAt(HwType.CORE).tasks(t, Color.SPREAD);
            assertEquals(plain, CORES.kind(Kind.ANY).plan(Scope.of(LAPTOP), t), t + " tasks");
        }
    }

    @Test
    void aLargerPoolGivesItsLowerTasksThePerformanceCores() {
        assertEquals("0-1 2-3 4-5 6-7 8-9 10-11 12 13 14 15 16 17 18 19", plan(CORES, LAPTOP, 14));
        // 8 tasks: 6 on P-cores, the other 2 spread over the E-cores' two clusters
        assertEquals("0-1 2-3 4-5 6-7 8-9 10-11 12 16", plan(CORES, LAPTOP, 8));
    }

    @Test
    void morePiecesThanTasksAreDealtByThePusEachKindHas() {
        // 20 tasks on 14 cores: 12 on the P-cores' 12 PUs, 8 on the E-cores: no core gets more tasks than PUs
        assertEquals("0-1 2-3 4-5 6-7 8-9 10-11 0-1 2-3 4-5 6-7 8-9 10-11 12 13 14 15 16 17 18 19", plan(CORES, LAPTOP, 20));
        assertArrayEquals(new int[] {12, 8}, KindParts.deal(20, new int[] {6, 8}, new int[] {12, 8}));
        assertArrayEquals(new int[] {6, 2}, KindParts.deal(8, new int[] {6, 8}, new int[] {12, 8}));
        assertArrayEquals(new int[] {10, 6}, KindParts.deal(16, new int[] {6, 8}, new int[] {12, 8}));
    }

    @Test
    void performanceEfficiencyAndARankNarrowTheScopeBeforeTheSplit() {
        assertEquals("12 14 16 18", plan(CORES.kind(Kind.EFFICIENCY), LAPTOP, 4));
        assertEquals("12 14 16 18", plan(CORES.kind(0), LAPTOP, 4));
        assertEquals("0-1 2-3 6-7 8-9", plan(CORES.kind(Kind.PERFORMANCE), LAPTOP, 4));
        assertEquals("0-1 2-3 4-5 6-7 8-9 10-11 0-1 2-3", plan(CORES.kind(1), LAPTOP, 8));
        assertEquals(6, CORES.kind(Kind.PERFORMANCE).cut(Scope.of(LAPTOP)).pieces().size());
    }

    @Test
    void noPieceMixesKinds() {
        for (PlacementSpec s : List.of(PlacementSpec.splitAt(HwType.PACKAGE), PlacementSpec.splitAt(HwType.L3), PlacementSpec.split(2),
                PlacementSpec.split(3), PlacementSpec.split(7), PlacementSpec.splitAt(HwType.L2))) {
            for (Scope piece : s.cut(Scope.of(LAPTOP)).pieces()) {
                assertTrue(CpuSet.range(0, 11).containsAll(piece.cpuset()) || CpuSet.range(12, 19).containsAll(piece.cpuset()), s + ": " + piece);
            }
        }
        assertEquals("0-11 12-19", plan(PlacementSpec.splitAt(HwType.PACKAGE), LAPTOP, 2));
        assertEquals("0-11", plan(PlacementSpec.splitAt(HwType.PACKAGE), LAPTOP, 1));
    }

    @Test
    void aKindThatCannotTakeTheCutIsLeftOut() {
        // 10 pieces: the P-cores' 12 PUs can, the E-cores' 8 cannot
        Split s = PlacementSpec.split(10).cut(Scope.of(LAPTOP));
        assertEquals(10, s.pieces().size());
        assertTrue(CpuSet.range(0, 11).containsAll(s.pieces().get(9).cpuset()));
        // 16 pieces: neither can, so the whole scope is cut
        assertEquals(16, PlacementSpec.split(16).cut(Scope.of(LAPTOP)).pieces().size());
    }

    @Test
    void colorsOtherThanSpreadMapInsideEachKind() {
        assertEquals("0-1 2-3 4-5 6-7 8-9 10-11 12 13", plan(CORES.color(Color.PACKED), LAPTOP, 8));
        assertEquals("0-3 4-7 8-11", plan(CORES.color(Color.AUTO), LAPTOP, 3));
        // an ordinal is a piece of the whole split, the fastest kind's pieces first
        assertEquals("12 12", plan(CORES.ordinal(6), LAPTOP, 2));
    }

    @Test
    void scopeKindsListsTheMostPerformantFirstAndOfKindNamesTheKindsWhenThereIsNone() {
        Scope all = Scope.of(LAPTOP);
        assertEquals(List.of(CpuSet.range(0, 11), CpuSet.range(12, 19)), all.kinds().stream().map(Scope::cpuset).toList());
        assertEquals(CpuSet.range(12, 19), all.ofKind(Kind.EFFICIENCY).cpuset());
        assertEquals(CpuSet.range(0, 11), all.ofKind(1).cpuset());
        assertEquals(all, all.ofKind(Kind.ANY));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> all.ofKind(2));
        assertEquals("no PU of CPU kind 2 in scope[cores:14 pus:0-19]: its kinds are 1 (pus 0-11), 0 (pus 12-19)", e.getMessage());
        // a scope inside one kind has one part
        Scope pCores = Scope.of(LAPTOP, CpuSet.range(0, 5));
        assertEquals(List.of(pCores), pCores.kinds());
        assertEquals(pCores, pCores.ofKind(Kind.EFFICIENCY));
    }

    @Test
    void onAMachineOfOneKindEveryChoiceButAMissingRankPlacesAlike() {
        Topology t = SyntheticSpec.parse("package:2 core:4 pu:2");
        for (int tasks = 1; tasks <= 20; tasks++) {
            for (Color c : List.of(Color.SPREAD, Color.PACKED, Color.AUTO)) {
                String any = plan(CORES.color(c).kind(Kind.ANY), t, tasks);
                for (Kind k : Kind.values()) assertEquals(any, plan(CORES.color(c).kind(k), t, tasks), tasks + " " + c + " " + k);
                assertEquals(any, plan(CORES.color(c).kind(0), t, tasks));
            }
        }
        assertThrows(IllegalArgumentException.class, () -> CORES.kind(1).cut(Scope.of(t)));
    }

    @Test
    void theSyntheticSpecWritesKindsWithTheirRank() {
        Topology t = SyntheticSpec.parse("package:1 core:14 kind:0-5@1 kind:6-13@0");
        assertEquals("0-5", plan(PlacementSpec.splitAt(HwType.PACKAGE), t, 1));
        assertEquals("0 1 2 3 4 5 6 7", plan(CORES.color(Color.PACKED), t, 8));
        assertEquals(List.of(CpuSet.range(6, 13), CpuSet.range(0, 5)), t.cpuKinds().stream().map(k -> k.cpus()).toList());
        for (String bad : List.of("kind:0-5", "kind:0-5@x", "kind:@1", "kind:0-5@1 kind:5-6@0", "kind:0-20@1", "kind:0-5@-1")) {
            TopologyException e = assertThrows(TopologyException.class, () -> SyntheticSpec.parse("package:1 core:14 " + bad), bad);
            assertTrue(e.getMessage().contains("kind:"), e.getMessage());
        }
    }

    @Test
    void theKindIsPartOfThePolicysWordsAndEquality() {
        assertEquals("split-at=core color=spread", CORES.toString());
        assertEquals("split-at=core color=spread kind=efficiency", CORES.kind(Kind.EFFICIENCY).toString());
        assertEquals("split=4 color=packed kind=1", PlacementSpec.split(4).color(Color.PACKED).kind(1).toString());
        assertTrue(!CORES.equals(CORES.kind(Kind.ANY)));
        assertEquals(CORES.kind(1), CORES.kind(Kind.ANY).kind(1));
        assertEquals(Kind.EFFICIENCY, CORES.kind(2).kindOf(CORES.kind(Kind.EFFICIENCY)).kind());
    }
}
