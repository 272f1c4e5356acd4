package io.qv4j.split;

import io.qv4j.topology.HwType;

/**
 * What a regular split counts (DESIGN.md §4.1): cores when there are at least as many cores as
 * pieces, else PUs. A core unit holds all PUs of its core in the scope, so SMT siblings stay
 * together.
 *
 * @param type   {@link HwType#CORE} or {@link HwType#PU}
 * @param pus    the scope's PUs, sorted logical indexes
 * @param starts unit {@code u} is {@code pus[starts[u]..starts[u+1])}; length {@code count() + 1}
 */
public record Units(HwType type, int[] pus, int[] starts) {

    /** @throws IllegalArgumentException when {@code pieces < 1} or above the number of PUs */
    public static Units choose(LogicalPus index, int[] pus, int pieces) {
        if (pieces < 1) throw new IllegalArgumentException("cannot split into " + pieces + " pieces: need at least 1");
        Units cores = cores(index, pus);
        if (pieces <= cores.count()) return cores;
        if (pieces <= pus.length) return pus(pus);
        throw new IllegalArgumentException("cannot split " + pus.length + " PUs into " + pieces + " pieces");
    }

    /** One unit per core with PUs in {@code pus} (a core's PUs are consecutive in logical order). */
    public static Units cores(LogicalPus index, int[] pus) {
        int[] starts = new int[pus.length + 1];
        int n = 0;
        for (int i = 0; i < pus.length; i++) {
            if (i == 0 || index.core(pus[i]) != index.core(pus[i - 1])) starts[n++] = i;
        }
        starts[n] = pus.length;
        return new Units(HwType.CORE, pus, java.util.Arrays.copyOf(starts, n + 1));
    }

    public static Units pus(int[] pus) {
        int[] starts = new int[pus.length + 1];
        for (int i = 0; i <= pus.length; i++) starts[i] = i;
        return new Units(HwType.PU, pus, starts);
    }

    public int count() {
        return starts.length - 1;
    }

    /** {@code levels[u]}: the boundary level between unit {@code u} and unit {@code u+1}. */
    public int[] boundaryLevels(LogicalPus index) {
        int[] levels = new int[Math.max(count() - 1, 0)];
        for (int u = 0; u < levels.length; u++) {
            levels[u] = index.boundaryLevel(pus[starts[u + 1] - 1], pus[starts[u + 1]]);
        }
        return levels;
    }
}
