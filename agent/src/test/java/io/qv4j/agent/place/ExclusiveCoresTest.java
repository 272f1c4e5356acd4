package io.qv4j.agent.place;

import io.qv4j.topology.CpuSet;
import io.qv4j.topology.SyntheticSpec;
import io.qv4j.topology.Topology;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ExclusiveCoresTest {

    /** 2 packages x 4 cores x 2 threads: core c is PUs 2c and 2c+1. */
    static final Topology SMT = SyntheticSpec.parse("package:2 core:4 pu:2");
    static final CpuSet NONE = CpuSet.empty();

    static List<String> units(ExclusiveCores.Choice c) {
        assertNull(c.refused(), c.refused());
        return c.units().stream().map(CpuSet::toString).toList();
    }

    @Test
    void workersGetWholeCoresFromTheLastCoreBack() {
        assertEquals(List.of("14-15", "12-13"), units(ExclusiveCores.choose(SMT, SMT.allowed(), NONE, NONE, NONE, 2)));
    }

    @Test
    void coresOtherPoolsOfTheJvmHoldAreTakenLast() {
        CpuSet held = CpuSet.parse("8-15");
        assertEquals(List.of("6-7", "4-5"), units(ExclusiveCores.choose(SMT, SMT.allowed(), NONE, NONE, held, 2)));
        assertEquals(List.of("14-15"), units(ExclusiveCores.choose(SMT, SMT.allowed(), NONE, NONE, SMT.allowed(), 1)));
    }

    @Test
    void aCoreAnotherJvmClaimsOrAnotherExclusivePoolHoldsIsNeverTakenNorHalfOfIt() {
        assertEquals(List.of("10-11"), units(ExclusiveCores.choose(SMT, SMT.allowed(), CpuSet.parse("15"), CpuSet.parse("12-13"), NONE, 1)));
    }

    @Test
    void kernelIsolatedPusComeFirstOnePerWorker() {
        Topology t = SMT.withIsolation(CpuSet.parse("2-3"), CpuSet.parse("2-3"));
        assertEquals(List.of("2", "3", "14-15"), units(ExclusiveCores.choose(t, t.allowed(), NONE, NONE, NONE, 3)));
    }

    @Test
    void aCoreOnlyPartlyAllowedGivesItsAllowedPus() {
        assertEquals(List.of("15"), units(ExclusiveCores.choose(SMT, CpuSet.parse("0-13,15"), NONE, NONE, NONE, 1)));
    }

    @Test
    void onePuAllowedIsRefusedForLeavingTheRestNothing() {
        ExclusiveCores.Choice c = ExclusiveCores.choose(SMT, CpuSet.parse("5"), NONE, NONE, NONE, 1);
        assertTrue(c.refused().startsWith("it would leave the rest of the JVM 0 PUs"), c.refused());
    }

    @Test
    void moreWorkersThanFreeCoresIsRefused() {
        ExclusiveCores.Choice c = ExclusiveCores.choose(SMT, SMT.allowed(), CpuSet.parse("0-9"), NONE, NONE, 4);
        assertEquals("4 workers want a core each and 3 are free of other JVMs' claims and other exclusive pools", c.refused());
    }

    @Test
    void theRestMustKeepAPuNoOtherJvmClaims() {
        // cores 0-6 claimed by others: core 7 would be this pool's, and the rest would be others' PUs only
        ExclusiveCores.Choice c = ExclusiveCores.choose(SMT, SMT.allowed(), CpuSet.parse("0-13"), NONE, NONE, 1);
        assertTrue(c.refused().contains("0 PUs free of other JVMs' claims"), c.refused());
    }
}
