package io.qv4j.agent.place;

import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Which JVM scope the process's allowed set asks for ({@link AllowedSet#target}). */
class AllowedSetTest {

    private static CpuSet pus(String list) {
        return CpuSet.parse(list);
    }

    @Test
    void aProcessThatStillHoldsTheScopeKeepsIt() {
        assertNull(AllowedSet.target(pus("0-63"), pus("0-63"), pus("0-63"), false));
        // a share of the node (claims, a launcher's rank) inside a wider allowed set
        assertNull(AllowedSet.target(pus("16-31"), pus("16-31"), pus("0-63"), false));
    }

    @Test
    void aNarrowedProcessGetsTheGrantedPartInsideIt() {
        assertEquals(pus("0-31"), AllowedSet.target(pus("0-63"), pus("0-63"), pus("0-31"), false));
        assertEquals(pus("16-23"), AllowedSet.target(pus("16-31"), pus("16-31"), pus("0-23"), false));
    }

    @Test
    void aProcessNarrowedOutsideItsGrantWholeGetsTheWholeNewSet() {
        assertEquals(pus("32-47"), AllowedSet.target(pus("16-31"), pus("16-31"), pus("32-47"), false));
    }

    @Test
    void aProcessWidenedAfterANarrowingGetsBackUpToItsGrantOnly() {
        assertEquals(pus("16-31"), AllowedSet.target(pus("16-31"), pus("16-23"), pus("0-63"), true));
        assertEquals(pus("16-27"), AllowedSet.target(pus("16-31"), pus("16-23"), pus("0-27"), true));
    }

    @Test
    void aWiderMaskIsNoChangeUnlessTheProcessWasNarrowedBefore() {
        // the main thread widened by the application, the JVM never narrowed: its scope stays
        assertNull(AllowedSet.target(pus("16-31"), pus("16-23"), pus("0-63"), false));
    }
}
