package io.qv4j.api;

import io.qv4j.topology.HwType;
import io.qv4j.api.Members.Outcome;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Collectives that hand out pieces of a split: the worked mapping examples (spread, packed,
 * undefined members) through a group, on the split engine ({@code Scope.split/splitAt},
 * {@code Split.tasks/tasksByOrdinal}).
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class TaskGroupEngineTest {

    /** {@code package:2 core:4 pu:2}: core c holds PUs 2c and 2c+1. */
    private final Topology machine = TestTopologies.machine(2, 4, 2);
    private final Scope scope = Scope.of(machine);

    @Test
    void splitAtCoreSpreadsThreeMembersOnCoresZeroTwoFour() throws Exception {
        List<Outcome> out = Members.run(TaskGroup.create(3), m -> m.splitAt(scope, HwType.CORE, Color.SPREAD));
        assertEquals(List.of(CpuSet.of(0, 1), CpuSet.of(4, 5), CpuSet.of(8, 9)), cpus(out));
    }

    @Test
    void undefinedMembersAreLeftOutOfTheMapping() throws Exception {
        List<Outcome> out = Members.run(TaskGroup.create(5), m ->
                m.splitAt(scope, HwType.CORE, m.rank() % 2 == 1 ? Color.UNDEFINED : Color.SPREAD));
        assertEquals(List.of(CpuSet.of(0, 1), CpuSet.empty(), CpuSet.of(4, 5), CpuSet.empty(), CpuSet.of(8, 9)), cpus(out));
    }

    @Test
    void splitAtPackagePackedPutsFourMembersZeroZeroOneOne() throws Exception {
        List<Outcome> out = Members.run(TaskGroup.create(4), m -> m.splitAt(scope, HwType.PACKAGE, Color.PACKED));
        CpuSet p0 = CpuSet.range(0, 7);
        CpuSet p1 = CpuSet.range(8, 15);
        assertEquals(List.of(p0, p0, p1, p1), cpus(out));
    }

    @Test
    void regularSplitWithPackedColorGivesEachPieceABlockOfMembers() throws Exception {
        List<Outcome> out = Members.run(TaskGroup.create(4), m -> m.split(scope, 2, Color.PACKED));
        CpuSet p0 = CpuSet.range(0, 7);
        CpuSet p1 = CpuSet.range(8, 15);
        assertEquals(List.of(p0, p0, p1, p1), cpus(out));
    }

    @Test
    void ordinalColorsPickPiecesOfTheRegularSplit() throws Exception {
        List<Outcome> out = Members.run(TaskGroup.create(3), m -> m.splitByOrdinal(scope, 3, 2 - m.rank()));
        assertEquals(List.of(CpuSet.range(12, 15), CpuSet.range(6, 11), CpuSet.range(0, 5)), cpus(out));
    }

    @Test
    void ordinalColorsPickPackagesAndUndefinedGetsNothing() throws Exception {
        List<Outcome> out = Members.run(TaskGroup.create(4), m ->
                m.splitAt(scope, HwType.PACKAGE, m.rank() == 3 ? TaskGroup.UNDEFINED : m.rank() % 2));
        assertEquals(List.of(CpuSet.range(0, 7), CpuSet.range(8, 15), CpuSet.range(0, 7), CpuSet.empty()), cpus(out));
    }

    @Test
    void ordinalBeyondTheSplitFailsForAllNamingRankAndPiece() throws Exception {
        List<Outcome> out = Members.run(TaskGroup.create(2), m -> m.splitAt(scope, HwType.PACKAGE, m.rank() * 2));
        for (Outcome o : out) {
            assertInstanceOf(IllegalArgumentException.class, o.error(), "rank " + o.rank());
            assertEquals("task group of 2: collective splitAtByOrdinal: rank 1 asked for piece 2 of 2", o.error().getMessage());
        }
    }

    @Test
    void splitTheEngineRejectsFailsForAllWithItsReason() throws Exception {
        Scope fourPus = Scope.of(machine, CpuSet.range(0, 3));
        List<Outcome> out = Members.run(TaskGroup.create(3), m -> m.split(fourPus, 6, Color.PACKED));
        for (Outcome o : out) {
            assertInstanceOf(IllegalArgumentException.class, o.error(), "rank " + o.rank());
            assertTrue(o.error().getMessage().startsWith("task group of 3: collective split: "), o.error().getMessage());
            assertTrue(o.error().getMessage().contains("6"), o.error().getMessage());
        }
    }

    /** Each rank's cpuset; empty for an empty result. */
    private static List<CpuSet> cpus(List<Outcome> out) {
        List<CpuSet> cpus = new ArrayList<>();
        for (Outcome o : out) {
            Optional<?> piece = o.value(Optional.class);
            cpus.add(piece.map(s -> ((Scope) s).cpuset()).orElse(CpuSet.empty()));
        }
        return cpus;
    }
}
