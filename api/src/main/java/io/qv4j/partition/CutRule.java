package io.qv4j.partition;

import java.math.BigInteger;

/**
 * Where one work-balanced cut goes. A range of positions {@code [start, end]} of a prefix-sum
 * array (total {@code W = pre[end] − pre[start]}) is being cut into {@code parts} parts; the cut
 * sought closes the strip that began at {@code stripStart} and holds {@code stripParts} parts, so
 * that {@code upTo} parts lie before the cut and {@code parts − upTo} after it. The rule, in order:
 * <ol>
 *   <li>the load before the cut is closest to its share {@code W·upTo/parts} (exact arithmetic);</li>
 *   <li>tie (two loads equally far, one below and one above): the cut whose heavier side per part,
 *       {@code max(strip/stripParts, rest/(parts−upTo))}, is lighter, so for an odd bisection the
 *       side with more parts takes the excess;</li>
 *   <li>still tied: the larger load before the cut (the cut further right);</li>
 *   <li>the load fixed, positions that differ only by zero weights are all equal: the one closest
 *       to the proportional index {@code start + (end−start)·upTo/parts} (halves up), so zero
 *       weights are shared out like space.</li>
 * </ol>
 * The cut is confined to {@code [lo, hi]}. Pure.
 */
public final class CutRule {

    private CutRule() {
    }

    public static int choose(long[] pre, int start, int end, int lo, int hi, int stripStart, int upTo, int stripParts, int parts) {
        if (lo >= hi) return lo;
        long base = pre[start], total = pre[end] - base;
        long floorTarget = mulDivFloor(upTo, total, parts); // floor(W·upTo/parts), relative to base
        int c1 = Prefix.lastAtMost(pre, lo, hi, base + floorTarget);
        int c2 = c1 + 1;
        long value;
        if (c1 < lo) {
            value = pre[lo];
        } else if (c2 > hi || exact(pre[c1] - base, upTo, total, parts)) {
            value = pre[c1];
        } else {
            value = pick(pre, end, stripStart, upTo, stripParts, parts, base, total, pre[c1], pre[c2]);
        }
        int first = Math.max(lo, Prefix.firstAtLeast(pre, lo, hi, value));
        int last = Prefix.lastAtMost(pre, lo, hi, value);
        long span = (long) end - start;
        int proportional = (int) (start + (2 * span * upTo + parts) / (2L * parts));
        return Math.max(first, Math.min(last, proportional));
    }

    /** Rules 1–3 between a load below the share and one above it (absolute prefix values). */
    private static long pick(long[] pre, int end, int stripStart, int upTo, int stripParts, int parts,
                             long base, long total, long v1, long v2) {
        BigInteger share = BigInteger.valueOf(upTo).multiply(BigInteger.valueOf(total)); // W·upTo, scaled by parts
        BigInteger p = BigInteger.valueOf(parts);
        BigInteger d1 = share.subtract(p.multiply(BigInteger.valueOf(v1 - base)));
        BigInteger d2 = p.multiply(BigInteger.valueOf(v2 - base)).subtract(share);
        int byDistance = d1.compareTo(d2);
        if (byDistance != 0) return byDistance < 0 ? v1 : v2;
        int restParts = parts - upTo;
        long from = pre[stripStart], to = pre[end];
        int byHeavier = comparePerPartMax(v1 - from, to - v1, v2 - from, to - v2, stripParts, restParts);
        if (byHeavier != 0) return byHeavier < 0 ? v1 : v2;
        return v2;
    }

    /** Compares {@code max(s1/sp, r1/rp)} with {@code max(s2/sp, r2/rp)}. */
    private static int comparePerPartMax(long s1, long r1, long s2, long r2, int sp, int rp) {
        // scale both by sp·rp: max(s·rp, r·sp)
        BigInteger a = BigInteger.valueOf(s1).multiply(BigInteger.valueOf(rp)).max(BigInteger.valueOf(r1).multiply(BigInteger.valueOf(sp)));
        BigInteger b = BigInteger.valueOf(s2).multiply(BigInteger.valueOf(rp)).max(BigInteger.valueOf(r2).multiply(BigInteger.valueOf(sp)));
        return a.compareTo(b);
    }

    /** Whether {@code x·parts == upTo·total}. */
    private static boolean exact(long x, int upTo, long total, int parts) {
        return BigInteger.valueOf(x).multiply(BigInteger.valueOf(parts))
                .equals(BigInteger.valueOf(upTo).multiply(BigInteger.valueOf(total)));
    }

    /** {@code floor(a·b/c)} for non-negative values, exact. */
    static long mulDivFloor(long a, long b, long c) {
        long hi = Math.multiplyHigh(a, b);
        if (hi == 0 && a * b >= 0) return a * b / c;
        return BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).divide(BigInteger.valueOf(c)).longValueExact();
    }
}
