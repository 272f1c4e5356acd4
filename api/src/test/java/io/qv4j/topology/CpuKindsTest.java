package io.qv4j.topology;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** CPU kinds registered and ranked as hwloc 2 does (its cpukinds.c), through the builder. */
class CpuKindsTest {

    private static TopologyBuilder machine(int pus) {
        return new TopologyBuilder("test").online(CpuSet.range(0, pus - 1));
    }

    private static List<String> kinds(Topology t) {
        return t.cpuKinds().stream().map(k -> k.efficiency() + " " + k.cpus() + " " + k.info() + " " + k.forcedEfficiency()).toList();
    }

    @Test
    void aSetCoveringPartOfAKindSplitsItAndOneCoveringAWholeKindAddsToIt() {
        Topology t = machine(6)
                .cpuKind(CpuSet.range(0, 5), Map.of("FrequencyMaxMHz", "2000"), -1)
                .cpuKind(CpuSet.range(4, 5), Map.of("LinuxCapacity", "1024"), 1)
                .cpuKind(CpuSet.range(0, 3), Map.of("LinuxCapacity", "512"), 0).build();
        assertEquals(List.of("0 0-3 {FrequencyMaxMHz=2000, LinuxCapacity=512} 0", "1 4-5 {FrequencyMaxMHz=2000, LinuxCapacity=1024} 1"), kinds(t));
        assertEquals(1, t.pu(5).efficiency());
        assertEquals(0, t.pu(0).efficiency());
    }

    @Test
    void equalRankingValuesLeaveTheKindsUnrankedInTheOrderFound() {
        Topology t = machine(4)
                .cpuKind(CpuSet.range(2, 3), Map.of("FrequencyBaseMHz", "1200"), -1)
                .cpuKind(CpuSet.range(0, 1), Map.of("FrequencyBaseMHz", "1200"), -1).build();
        assertEquals(List.of("-1 2-3 {FrequencyBaseMHz=1200} -1", "-1 0-1 {FrequencyBaseMHz=1200} -1"), kinds(t));
        assertEquals(0, t.pu(2).efficiency(), "an unranked kind's PUs count as 0");
    }

    @Test
    void equalForcedEfficienciesFallBackToFrequencies() {
        Topology t = machine(4)
                .cpuKind(CpuSet.range(0, 1), Map.of("FrequencyMaxMHz", "4000"), 1)
                .cpuKind(CpuSet.range(2, 3), Map.of("FrequencyMaxMHz", "3000"), 1).build();
        assertEquals(List.of(CpuSet.range(2, 3), CpuSet.range(0, 1)), t.cpuKinds().stream().map(CpuKind::cpus).toList());
    }

    @Test
    void theBaseFrequencyRanksWhereEveryKindHasOneElseTheMaximum() {
        // the P-cores' base frequency is lower here, their maximum higher: base wins where all have one
        Topology withBase = machine(4)
                .cpuKind(CpuSet.range(0, 1), Map.of("FrequencyMaxMHz", "5000", "FrequencyBaseMHz", "1000"), -1)
                .cpuKind(CpuSet.range(2, 3), Map.of("FrequencyMaxMHz", "3000", "FrequencyBaseMHz", "2000"), -1).build();
        assertEquals(CpuSet.range(0, 1), withBase.cpuKinds().get(0).cpus());
        Topology maxOnly = machine(4)
                .cpuKind(CpuSet.range(0, 1), Map.of("FrequencyMaxMHz", "5000", "FrequencyBaseMHz", "1000"), -1)
                .cpuKind(CpuSet.range(2, 3), Map.of("FrequencyMaxMHz", "3000"), -1).build();
        assertEquals(CpuSet.range(2, 3), maxOnly.cpuKinds().get(0).cpus());
    }

    @Test
    void theCoreTypeOutranksFrequencies() {
        Topology t = machine(6)
                .cpuKind(CpuSet.range(0, 1), Map.of("CoreType", "IntelCore", "FrequencyBaseMHz", "1000"), -1)
                .cpuKind(CpuSet.range(2, 3), Map.of("CoreType", "IntelAtom", "FrequencyBaseMHz", "2500"), -1)
                .cpuKind(CpuSet.range(4, 5), Map.of("CoreType", "IntelLowPower", "FrequencyBaseMHz", "3000"), -1).build();
        assertEquals(List.of(CpuSet.range(4, 5), CpuSet.range(2, 3), CpuSet.range(0, 1)), t.cpuKinds().stream().map(CpuKind::cpus).toList());
    }

    @Test
    void oneKindHasEfficiencyZeroAndKindsKeepOnlyOnlinePus() {
        Topology t = machine(4).cpuKind(CpuSet.range(0, 7), Map.of(), -1).cpuKind(CpuSet.range(6, 7), Map.of("FrequencyMaxMHz", "1"), -1).build();
        assertEquals(List.of("0 0-3 {} -1"), kinds(t), "the kind of offline PUs 6-7 is gone; 4-5 are cut");
    }

    @Test
    void aMachineWithoutKindsHasNone() {
        assertEquals(List.of(), machine(2).build().cpuKinds());
    }
}
