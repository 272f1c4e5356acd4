package io.qv4j.agent.place;

import io.qv4j.agent.load.PuLoad;
import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The turn of a plan round its pieces: least of others' work first, then this JVM's offset; spread stays spread. */
class LoadOrderTest {

    /** Four one-PU pieces 0-3. */
    static final List<CpuSet> CUT = List.of(CpuSet.of(0), CpuSet.of(1), CpuSet.of(2), CpuSet.of(3));

    static PuLoad load(double... foreign) {
        return PuLoad.of(foreign, Map.of(), 1);
    }

    static EnginePlanner.Plan plan(CpuSet... perTask) {
        return new EnginePlanner.Plan(CUT, Arrays.asList(perTask));
    }

    @Test
    void aTaskGoesToTheLeastLoadedPiece() {
        EnginePlanner.Plan turned = LoadOrder.turn(plan(CpuSet.of(0)), load(0.9, 0.5, 0.2, 0.3), 3, 0);
        assertEquals(List.of(CpuSet.of(2)), turned.perTask());
    }

    @Test
    void onAnIdleMachineTheOffsetChoosesAndDifferentOffsetsChooseDifferentPieces() {
        Set<CpuSet> seen = new HashSet<>();
        for (int offset = 0; offset < 4; offset++) seen.add(LoadOrder.turn(plan(CpuSet.of(0)), load(0.05, 0, 0.09, 0), -1, offset).perTask().get(0));
        assertEquals(4, seen.size(), "noise below the idle line does not decide: " + seen);
    }

    @Test
    void amongEquallyIdlePiecesTheFirstTaskStaysOnThePuItsThreadRunsOn() {
        for (int offset = 0; offset < 4; offset++) {
            assertEquals(List.of(CpuSet.of(2)), LoadOrder.turn(plan(CpuSet.of(0)), load(0, 0, 0, 0), 2, offset).perTask());
        }
        assertEquals(List.of(CpuSet.of(1)), LoadOrder.turn(plan(CpuSet.of(0)), load(0, 0, 0.9, 0), 2, 1).perTask(), "not on a busy PU");
    }

    @Test
    void aSpreadPairStaysAsFarApartAsItWas() {
        EnginePlanner.Plan turned = LoadOrder.turn(plan(CpuSet.of(0), CpuSet.of(2)), load(0.8, 0, 0, 0), -1, 0);
        assertEquals(List.of(CpuSet.of(1), CpuSet.of(3)), turned.perTask());
    }

    @Test
    void aPlanThatUsesEveryPieceIsLeftAsItIs() {
        EnginePlanner.Plan p = plan(CpuSet.of(0), CpuSet.of(1), CpuSet.of(2), CpuSet.of(3));
        assertSame(p, LoadOrder.turn(p, load(1, 0, 0, 0), 1, 3));
    }

    @Test
    void aTaskOnPartOfAPieceLeavesThePlanAsItIs() {
        EnginePlanner.Plan p = new EnginePlanner.Plan(List.of(CpuSet.parse("0-1"), CpuSet.parse("2-3")), List.of(CpuSet.of(0)));
        assertSame(p, LoadOrder.turn(p, load(1, 1, 0, 0), 3, 0));
    }

    @Test
    void aTaskWithoutAPieceStaysWithout() {
        EnginePlanner.Plan turned = LoadOrder.turn(plan(CpuSet.of(0), null), load(1, 0, 0, 0), -1, 0);
        assertEquals(Arrays.asList(CpuSet.of(1), null), turned.perTask());
    }
}
