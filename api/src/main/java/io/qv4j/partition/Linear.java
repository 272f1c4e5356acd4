package io.qv4j.partition;

/**
 * The exact contiguous partition of {@code N} weights into {@code P} parts that minimizes the
 * heaviest part (the "chains-on-chains" problem), by probe and bisection over prefix sums.
 *
 * <p>{@code probe(B)} asks whether {@code P} parts of load {@code ≤ B} suffice: each part greedily
 * takes as much as fits, found by binary search in the prefix sums ({@code O(P log N)}). The
 * optimum {@code B*} is a sum of weights, hence an integer, and lies in {@code [LB, LB + max w)}
 * with {@code LB = max(⌈W/P⌉, max w)} (the greedy with bound {@code W/P + max w} never needs more
 * than {@code P} parts), so bisection over the integers needs {@code log2(max w)} probes:
 * {@code O(N + P log N log(max w))} in all.
 *
 * <p>Among the many partitions with heaviest part {@code B*}, the greedy one piles load into the
 * first parts and can leave the last ones empty. Instead each cut {@code j} is placed by
 * {@link CutRule} near its proportional share {@code W·j/P}, within the positions that keep the
 * rest feasible: at least the {@code j}-th cut of the greedy partition built from the right (so the
 * suffix still fits in {@code P−j} parts) and at most what part {@code j} can reach within
 * {@code B*}. Pure.
 */
public final class Linear {

    private Linear() {
    }

    /**
     * @param pre prefix sums from {@link Prefix#of}
     * @return the {@code P+1} cut positions {@code 0 = c0 ≤ c1 ≤ … ≤ cP = N}; part {@code j} is {@code [c_j, c_{j+1})}
     * @throws IllegalArgumentException when {@code parts < 1}
     */
    public static int[] exact(long[] pre, long maxWeight, int parts) {
        if (parts < 1) throw new IllegalArgumentException("cannot partition into " + parts + " parts: need at least 1");
        int n = pre.length - 1;
        long total = pre[n];
        long bound = bottleneck(pre, maxWeight, parts);
        int[] earliest = new int[parts + 1]; // earliest[j]: smallest cut j from which the rest fits in P−j parts
        earliest[parts] = n;
        for (int j = parts - 1; j >= 1; j--) {
            earliest[j] = Prefix.firstAtLeast(pre, 0, earliest[j + 1], pre[earliest[j + 1]] - bound);
        }
        int[] cuts = new int[parts + 1];
        cuts[parts] = n;
        for (int j = 1; j < parts; j++) {
            int prev = cuts[j - 1];
            int reach = reach(pre, prev, bound);
            cuts[j] = CutRule.choose(pre, 0, n, Math.max(earliest[j], prev), reach, prev, j, 1, parts);
        }
        assert total == 0 || cuts[parts] == n;
        return cuts;
    }

    /** The smallest {@code B} such that {@code P} contiguous parts of load {@code ≤ B} cover all weights. */
    public static long bottleneck(long[] pre, long maxWeight, int parts) {
        long total = pre[pre.length - 1];
        long lo = Math.max(maxWeight, total / parts + (total % parts == 0 ? 0 : 1));
        long hi = lo > total - maxWeight ? total : lo + maxWeight; // always feasible
        while (lo < hi) {
            long mid = lo + (hi - lo) / 2;
            if (probe(pre, mid, parts)) hi = mid;
            else lo = mid + 1;
        }
        return lo;
    }

    /** Whether {@code parts} parts of load {@code ≤ bound} cover all weights. */
    public static boolean probe(long[] pre, long bound, int parts) {
        int n = pre.length - 1;
        int pos = 0;
        for (int p = 0; p < parts && pos < n; p++) pos = reach(pre, pos, bound);
        return pos == n;
    }

    /** The furthest end of a part starting at {@code from} with load {@code ≤ bound}. */
    static int reach(long[] pre, int from, long bound) {
        int n = pre.length - 1;
        if (bound >= pre[n] - pre[from]) return n;
        return Prefix.lastAtMost(pre, from, n, pre[from] + bound);
    }
}
