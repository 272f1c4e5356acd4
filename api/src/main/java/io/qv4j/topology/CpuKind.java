package io.qv4j.topology;

import java.util.Map;

/**
 * A kind of CPU, as hwloc models hybrid machines (P-cores and E-cores, big.LITTLE): the PUs of one
 * kind, its rank and what is known of it. {@code efficiency} ranks the kinds of a machine from 0,
 * the most energy-efficient (the slowest), upwards; -1 when they could not be ranked. {@code info}
 * holds hwloc's names: {@code FrequencyMaxMHz}, {@code FrequencyBaseMHz}, {@code LinuxCapacity},
 * {@code CoreType} ({@code IntelCore}, {@code IntelAtom}, {@code IntelLowPower}). {@code forcedEfficiency}
 * is what the source fixed the rank to (a ranked capacity, an XML file's {@code forced_efficiency}),
 * -1 where it fixed nothing. Built by {@link TopologyBuilder#cpuKind}; see {@link CpuKinds}.
 */
public record CpuKind(int efficiency, CpuSet cpus, Map<String, String> info, int forcedEfficiency) {

    public CpuKind {
        info = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(info));
    }
}
