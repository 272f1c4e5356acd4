package io.qv4j.agent.platform;

import io.qv4j.topology.SyntheticSpec;
import io.qv4j.topology.Topology;
import io.qv4j.topology.TopologyException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A dump is read within a time bound ({@link TopologyInput#within}). */
class TopologyInputTest {

    @Test
    void aReadThatNeverEndsIsOneErrorAfterTheBound() {
        long t0 = System.nanoTime();
        TopologyException e = assertThrows(TopologyException.class, () -> TopologyInput.within("/dump: reading the dump", 200, () -> {
            Thread.sleep(60_000); // a FIFO swapped in between the check and the open blocks like this
            return null;
        }));
        long millis = (System.nanoTime() - t0) / 1_000_000;
        assertEquals("/dump: reading the dump took more than 0.2 s (a file that blocks or never ends?)", e.getMessage());
        assertTrue(millis < 5_000, millis + " ms");
    }

    @Test
    void aReadWithinTheBoundGivesItsTopologyAndItsOwnError() {
        Topology t = SyntheticSpec.parse("package:1 core:2 pu:1");
        assertSame(t, TopologyInput.within("x", 5_000, () -> t));
        TopologyException bad = new TopologyException("/dump/sys/x: not a regular file");
        assertSame(bad, assertThrows(TopologyException.class, () -> TopologyInput.within("x", 5_000, () -> {
            throw bad;
        })));
    }
}
