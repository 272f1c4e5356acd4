package io.qv4j.partition;

/** Prefix sums of non-negative {@code long} weights, checked. */
public final class Prefix {

    private Prefix() {
    }

    /**
     * {@code pre[i]} = sum of {@code weights[0..i)}; length {@code weights.length + 1}.
     *
     * @throws IllegalArgumentException for a negative weight or a total above {@code Long.MAX_VALUE},
     *                                  naming the index
     */
    public static long[] of(long[] weights) {
        long[] pre = new long[weights.length + 1];
        long sum = 0;
        for (int i = 0; i < weights.length; i++) {
            long w = weights[i];
            if (w < 0) throw negative("[" + i + "]", w);
            sum += w;
            if (sum < 0) throw overflow("[" + i + "]");
            pre[i + 1] = sum;
        }
        return pre;
    }

    /** Checks a flat grid of weights; {@code name.apply(i)} names cell {@code i} in errors. Returns the total. */
    public static long total(long[] cells, java.util.function.IntFunction<String> name) {
        long sum = 0;
        for (int i = 0; i < cells.length; i++) {
            long w = cells[i];
            if (w < 0) throw negative(name.apply(i), w);
            sum += w;
            if (sum < 0) throw overflow(name.apply(i));
        }
        return sum;
    }

    static IllegalArgumentException negative(String where, long w) {
        return new IllegalArgumentException("weight " + where + " is negative (" + w + "): weights must be >= 0");
    }

    static IllegalArgumentException overflow(String where) {
        return new IllegalArgumentException("the weights overflow a long at " + where + ": their total must be <= " + Long.MAX_VALUE);
    }

    /** The last position {@code c} in {@code [lo, hi]} with {@code pre[c] <= v}, or {@code lo - 1} when none. */
    static int lastAtMost(long[] pre, int lo, int hi, long v) {
        int a = lo, b = hi + 1; // answer + 1 lies in [a, b]
        while (a < b) {
            int m = (a + b) >>> 1;
            if (pre[m] <= v) a = m + 1;
            else b = m;
        }
        return a - 1;
    }

    /** The first position {@code c} in {@code [lo, hi]} with {@code pre[c] >= v}, or {@code hi + 1} when none. */
    static int firstAtLeast(long[] pre, int lo, int hi, long v) {
        int a = lo, b = hi + 1;
        while (a < b) {
            int m = (a + b) >>> 1;
            if (pre[m] >= v) b = m;
            else a = m + 1;
        }
        return a;
    }
}
