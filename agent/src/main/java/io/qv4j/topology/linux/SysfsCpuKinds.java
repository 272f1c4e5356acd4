package io.qv4j.topology.linux;

import io.qv4j.topology.CpuSet;
import io.qv4j.topology.TopologyBuilder;
import io.qv4j.topology.TopologyException;

import java.nio.file.Path;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The CPU kinds of a sysfs root as hwloc's Linux backend finds them (2.9, with 2.10-2.12's PMU
 * lists): PUs grouped by maximum frequency, by base frequency, and by {@code cpu_capacity} (whose
 * sets get their rank as forced efficiency), in that order, each ascending; then Intel's
 * {@code cpu_atom}, {@code cpu_core} and {@code cpu_lowpower} PMU lists as core types. The
 * {@link TopologyBuilder} merges and ranks what is registered here.
 *
 * <p>The per-PU values are gathered by {@link #read} during {@link SysfsReader}'s one pass over
 * the PUs, so that each PU's directory is visited once; {@link #addTo} then registers the kinds.
 */
final class SysfsCpuKinds {

    private final FsRoot fs;
    // per PU, as hwloc reads them (MHz; 0 or absent: unknown)
    private final Map<Integer, Integer> maxMHz = new TreeMap<>(), baseMHz = new TreeMap<>(), capacity = new TreeMap<>();

    SysfsCpuKinds(FsRoot fs) {
        this.fs = fs;
    }

    /** Notes the frequencies and capacity of PU {@code pu}, whose directory is {@code cpu}. */
    void read(Path cpu, int pu) {
        putPositive(maxMHz, pu, leadingNumber(cpu.resolve("cpufreq/cpuinfo_max_freq")) / 1000);
        putPositive(baseMHz, pu, leadingNumber(cpu.resolve("cpufreq/base_frequency")) / 1000);
        putPositive(capacity, pu, leadingNumber(cpu.resolve("cpu_capacity"))); // only asymmetric (mostly arm) kernels have it
    }

    /**
     * Registers the kinds with {@code builder}. Where every PU with a maximum frequency also has a
     * base one, maximum frequencies that differ by less than 10 % among the PUs of one base
     * frequency (turbo bins of one kind of core) count as the lowest of them.
     */
    void addTo(TopologyBuilder builder) {
        if (!maxMHz.isEmpty() && baseMHz.keySet().containsAll(maxMHz.keySet())) {
            for (CpuSet base : groups(baseMHz).values()) {
                int lo = Integer.MAX_VALUE, hi = Integer.MIN_VALUE;
                for (int pu = base.first(); pu >= 0; pu = base.next(pu + 1)) {
                    Integer m = maxMHz.get(pu);
                    if (m == null) continue;
                    lo = Math.min(lo, m);
                    hi = Math.max(hi, m);
                }
                if (lo < hi && (float) (hi - lo) / (float) lo * 100 < 10f) {
                    for (int pu = base.first(); pu >= 0; pu = base.next(pu + 1)) if (maxMHz.containsKey(pu)) maxMHz.put(pu, lo);
                }
            }
        }
        registerKinds(builder, maxMHz, "FrequencyMaxMHz", false);
        registerKinds(builder, baseMHz, "FrequencyBaseMHz", false);
        registerKinds(builder, capacity, "LinuxCapacity", true);
        coreType(builder, "sys/devices/cpu_atom/cpus", "IntelAtom");
        coreType(builder, "sys/devices/cpu_core/cpus", "IntelCore");
        coreType(builder, "sys/devices/cpu_lowpower/cpus", "IntelLowPower");
    }

    /**
     * The number a file starts with, as hwloc reads these (strtoul); 0 when missing or not a
     * number. Over 9 digits (10^9 kHz, or 10^6 times the kernel's capacity scale) is the file's
     * error, not its first 9 digits: those would rank as another kind.
     */
    private int leadingNumber(Path file) {
        String s = fs.read(file);
        if (s == null) return 0;
        int digits = 0;
        while (digits < s.length() && s.charAt(digits) >= '0' && s.charAt(digits) <= '9') digits++;
        if (digits > 9) throw new TopologyException(file + ": number too large: '" + FsRoot.shown(s) + "'");
        return digits == 0 ? 0 : (int) FsRoot.decimal(s, 0, digits);
    }

    private static void putPositive(Map<Integer, Integer> m, int pu, int value) {
        if (value > 0) m.put(pu, value);
    }

    /** PUs by value, ascending. */
    private static Map<Integer, CpuSet> groups(Map<Integer, Integer> byPu) {
        Map<Integer, BitSet> bits = new TreeMap<>();
        for (Map.Entry<Integer, Integer> e : byPu.entrySet()) {
            BitSet b = bits.get(e.getValue());
            if (b == null) bits.put(e.getValue(), b = new BitSet());
            b.set(e.getKey());
        }
        Map<Integer, CpuSet> out = new LinkedHashMap<>();
        for (Map.Entry<Integer, BitSet> e : bits.entrySet()) out.put(e.getKey(), CpuSet.of(e.getValue()));
        return out;
    }

    private static void registerKinds(TopologyBuilder builder, Map<Integer, Integer> byPu, String name, boolean ranked) {
        int rank = 0;
        for (Map.Entry<Integer, CpuSet> e : groups(byPu).entrySet()) {
            builder.cpuKind(e.getValue(), Map.of(name, Integer.toString(e.getKey())), ranked ? rank++ : -1);
        }
    }

    private void coreType(TopologyBuilder builder, String list, String type) {
        CpuSet cpus = fs.readList(fs.path(list));
        if (cpus != null && !cpus.isEmpty()) builder.cpuKind(cpus, Map.of("CoreType", type), -1);
    }
}
