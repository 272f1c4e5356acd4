package io.qv4j.agent.place;

import io.qv4j.agent.load.PuLoad;
import io.qv4j.api.Color;
import io.qv4j.api.PlacementSpec;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.HwType;
import io.qv4j.topology.SyntheticSpec;
import io.qv4j.topology.Topology;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** Load chooses which of a split's pieces a pool takes, never how large they are; idle, the plan is the structural one. */
class IdlePiecesTest {

    /** The multi-socket guest: 2 packages x 2 NUMA nodes x 1 core x 2 PUs (nodes 0-1, 2-3, 4-5, 6-7). */
    static final Topology GUEST = SyntheticSpec.parse("package:2 numa:2 core:1 pu:2");
    /** A 2-socket, 128-PU server: 2 packages x 2 nodes x 16 cores x 2 PUs. */
    static final Topology SERVER = SyntheticSpec.parse("package:2 numa:2 core:16 pu:2");

    static PuLoad load(Topology t, Map<Integer, Double> busy) {
        double[] l = new double[t.pus().size()];
        busy.forEach((pu, v) -> l[pu] = v);
        return PuLoad.of(l, Map.of(), 1);
    }

    static List<String> chosen(Topology t, PlacementSpec policy, int tasks, Map<Integer, Double> busy) {
        EnginePlanner.Plan structural = EnginePlanner.compute(t, t.allowed(), policy, tasks);
        EnginePlanner.Plan plan = IdlePieces.choose(t, policy, tasks, structural, load(t, busy)::mean);
        List<String> out = new ArrayList<>();
        for (CpuSet c : plan.perTask()) out.add(c == null ? "-" : c.toString());
        return out;
    }

    static PlacementSpec at(HwType type, Color color) {
        return PlacementSpec.splitAt(type).color(color);
    }

    @Test
    void withNothingElseRunningThePlanIsTheStructuralOne() {
        EnginePlanner.Plan structural = EnginePlanner.compute(GUEST, GUEST.allowed(), at(HwType.NUMANODE, Color.PACKED), 2);
        assertSame(structural, IdlePieces.choose(GUEST, at(HwType.NUMANODE, Color.PACKED), 2, structural, load(GUEST, Map.of(1, 0.2, 5, 0.24))::mean));
        assertEquals(List.of("0-1", "2-3"), chosen(GUEST, at(HwType.NUMANODE, Color.PACKED), 2, Map.of()));
        assertEquals(List.of("0-1", "4-5"), chosen(GUEST, at(HwType.NUMANODE, Color.SPREAD), 2, Map.of()));
    }

    @Test
    void aBusyPuNeverNarrowsAPieceTheWorkerGetsAWholeOtherOne() {
        // PU 1 busy: node 0 is half busy, so the pool takes whole idle nodes, not PU 0; packed, both in
        // package 1 (the one with room for two) rather than across the packages
        assertEquals(List.of("4-5", "6-7"), chosen(GUEST, at(HwType.NUMANODE, Color.PACKED), 2, Map.of(1, 1.0)));
        assertEquals(List.of("2-3"), chosen(GUEST, at(HwType.NUMANODE, Color.PACKED), 1, Map.of(1, 1.0)));
        assertEquals(List.of("2-3"), chosen(GUEST, at(HwType.CORE, Color.PACKED), 1, Map.of(0, 0.6)));
    }

    @Test
    void packedStaysInsideItsPackageWhileThePackageHasRoom() {
        // node 1 busy: package 0 has one idle node left, package 1 two: both workers go to package 1
        assertEquals(List.of("4-5", "6-7"), chosen(GUEST, at(HwType.NUMANODE, Color.PACKED), 2, Map.of(2, 1.0, 3, 1.0)));
        // on the server, core 1 busy: cores 0 and 2, the nearest idle ones, in order
        assertEquals(List.of("0-1", "4-5"), chosen(SERVER, at(HwType.CORE, Color.PACKED), 2, Map.of(2, 1.0, 3, 1.0)));
        // node 0 all but one core busy: a packed pool of 4 takes 4 cores of node 1, not the last one of node 0 and 3 of node 1
        Map<Integer, Double> busy = new java.util.HashMap<>();
        for (int pu = 0; pu < 30; pu++) busy.put(pu, 1.0);
        assertEquals(List.of("32-33", "34-35", "36-37", "38-39"), chosen(SERVER, at(HwType.CORE, Color.PACKED), 4, busy));
    }

    @Test
    void spreadStaysSpreadOverTheIdlePieces() {
        // node 0 busy: one worker per package still, on the first idle node of each
        assertEquals(List.of("2-3", "4-5"), chosen(GUEST, at(HwType.NUMANODE, Color.SPREAD), 2, Map.of(0, 1.0, 1, 1.0)));
        assertEquals(List.of("0-1", "32-33"), chosen(SERVER, at(HwType.CORE, Color.SPREAD), 2, Map.of(64, 1.0)));
    }

    @Test
    void withTooFewIdlePiecesTheLeastLoadedBusyOnesMakeUpTheRest() {
        assertEquals(List.of("0-1", "4-5", "6-7"), chosen(GUEST, at(HwType.NUMANODE, Color.PACKED), 3, Map.of(1, 0.3, 2, 1.0, 3, 1.0, 4, 0.4)));
    }

    @Test
    void aPlanThatUsesEveryPieceOrNamesAPieceIsLeftAsItIs() {
        Map<Integer, Double> busy = Map.of(0, 1.0, 1, 1.0);
        assertEquals(List.of("0-1", "2-3", "4-5", "6-7"), chosen(GUEST, at(HwType.NUMANODE, Color.PACKED), 4, busy));
        assertEquals(List.of("0-3", "4-7"), chosen(GUEST, at(HwType.NUMANODE, Color.AUTO), 2, busy));
        assertEquals(List.of("0-1", "0-1"), chosen(GUEST, PlacementSpec.splitAt(HwType.NUMANODE).ordinal(0), 2, busy));
    }

    @Test
    void busyPiecesOfAlikeLoadAreTakenFromTheJvmsTurnAndAClearlyQuieterOneByEvery() {
        // two JVMs starting together: each sees the other's start-up on both PUs
        double[] alike = {0.51, 0.49};
        assertEquals(0, IdlePieces.idleFirst(alike, 1, 0)[0]);
        assertEquals(1, IdlePieces.idleFirst(alike, 1, 1)[0]);
        assertEquals(1, IdlePieces.idleFirst(alike, 1, 4243)[0], "the turn is taken mod the pieces");
        double[] clear = {0.9, 0.3};
        for (int turn = 0; turn < 4; turn++) assertEquals(1, IdlePieces.idleFirst(clear, 1, turn)[0], "turn " + turn);
    }
}
