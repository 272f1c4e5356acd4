package io.qv4j.api;

import io.qv4j.topology.HwType;
import io.qv4j.split.TestTopologies;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad requests are IllegalArgumentExceptions whose message names the values involved. */
class SplitErrorsTest {

    private static final Topology T = TestTopologies.synthetic("package:2 core:4 pu:2", CpuSet.parse("0-3"));

    private static String message(Executable e) {
        return assertThrows(IllegalArgumentException.class, e).getMessage();
    }

    @Test
    void zeroPieces() {
        assertEquals("cannot split into 0 pieces: need at least 1", message(() -> Scope.of(T).split(0)));
    }

    @Test
    void morePiecesThanPUsInScope() {
        assertEquals("cannot split 4 PUs into 6 pieces", message(() -> Scope.of(T).split(6)));
    }

    @Test
    void ordinalColorAtLeastThePieceCount() {
        Split s = Scope.of(T).split(2);
        String m = message(() -> s.task(0, 1, 2));
        assertTrue(m.contains("color 2") && m.contains("2 pieces"), m);
        m = message(() -> s.tasksByOrdinal(new int[] {0, 5}));
        assertTrue(m.contains("color 5") && m.contains("2 pieces"), m);
    }

    @Test
    void splitAtATypeAbsentFromTheScope_namesTheTypeAndTheScope() {
        assertEquals("cannot split at gpu: no gpu in scope[cores:2 pus:0-3]", message(() -> Scope.of(T).splitAt(HwType.GPU)));
        assertEquals("cannot split at l3: no l3 in scope[cores:2 pus:0-3]", message(() -> Scope.of(T).splitAt(HwType.L3)));
    }

    @Test
    void keyAndColorMixUps() {
        Split s = Scope.of(T).split(2);
        assertEquals("3 colors but 2 keys: need one of each per task",
                message(() -> s.assignByOrdinal(new int[] {0, 1, 1}, new int[] {0, 0})));
        assertEquals("negative task count -1", message(() -> s.tasks(-1, Color.SPREAD)));
        assertEquals("rank 4 out of range 0..3 for 4 tasks", message(() -> s.task(4, 4, Color.PACKED)));
        assertEquals("rank -1 out of range 0..3 for 4 tasks", message(() -> s.task(-1, 4, 0)));
    }

    @Test
    void scopeWithoutAllowedPUs_createBeyondTheCount_badShareCounts() {
        assertEquals("no allowed PU in PUs 8-15 (allowed: 0-3)", message(() -> Scope.of(T, CpuSet.parse("8-15"))));
        assertEquals("cannot create a scope of 3 core: scope[cores:2 pus:0-3] has 2", message(() -> Scope.of(T).create(HwType.CORE, 3)));
        assertEquals("no members to share among: counts [0, 0]", message(() -> Scope.of(T).shares(new int[] {0, 0})));
        assertEquals("negative member count -2 in [1, -2]", message(() -> Scope.of(T).shares(new int[] {1, -2})));
    }
}
