package io.qv4j.split;

/**
 * Where the {@code P−1} cuts of a regular split go (DESIGN.md §4.1): {@code U} units in a row,
 * pieces of {@code ⌊U/P⌋} or {@code ⌈U/P⌉} units, and the {@code U mod P} extra units given so that
 * the cuts fall on the highest hardware boundaries: maximize the sum of the boundary levels cut;
 * among equal sums, give the extras to the earliest pieces. The general form does the same for
 * pieces of unequal base sizes where only some pieces may take an extra (weighted splits).
 */
public final class CutPlacement {

    private static final int NONE = Integer.MIN_VALUE / 2;

    private CutPlacement() {
    }

    /**
     * @param levels {@code levels[u]}: the level of the boundary between unit {@code u} and
     *               {@code u+1} ({@code U−1} entries)
     * @return the size in units of each piece, in order
     */
    public static int[] sizes(int[] levels, int pieces) {
        int units = levels.length + 1;
        int[] base = new int[pieces];
        boolean[] eligible = new boolean[pieces];
        java.util.Arrays.fill(base, units / pieces);
        java.util.Arrays.fill(eligible, true);
        return sizes(levels, base, eligible, units % pieces);
    }

    /**
     * The general form, for splits whose pieces are not all the same size (weighted splits): piece
     * {@code i} has {@code base[i] ≥ 1} units, and {@code extras} more units go one each to pieces
     * marked {@code eligible}, chosen by the same rule: highest sum of cut boundary levels, ties to
     * the earliest pieces. The base sizes plus the extras must add up to {@code U}.
     */
    public static int[] sizes(int[] levels, int[] base, boolean[] eligible, int extras) {
        int pieces = base.length;
        int[] sizes = base.clone();
        if (extras == 0) return sizes;
        int[] ends = new int[pieces];            // ends[i]: base units of pieces 0..i
        int[] eligibleBefore = new int[pieces + 1];
        for (int i = 0, sum = 0; i < pieces; i++) {
            sum += base[i];
            ends[i] = sum;
            eligibleBefore[i + 1] = eligibleBefore[i] + (eligible[i] ? 1 : 0);
        }
        if (extras > eligibleBefore[pieces] || ends[pieces - 1] + extras != levels.length + 1) {
            throw new IllegalArgumentException(extras + " extras for " + eligibleBefore[pieces] + " eligible pieces of "
                    + java.util.Arrays.toString(base) + " do not make " + (levels.length + 1) + " units");
        }

        // Dynamic program over (piece i, extras e given to pieces before i), from the last piece
        // back: best[e] is the best score of the cuts after pieces i..P-2. Going backwards lets
        // the forward walk below prefer "extra now" on ties, which gives the extras to the
        // earliest pieces. O(P·r) time, P·(r+1) bits of decisions.
        int width = extras + 1;
        int[] best = new int[width], prev = new int[width];
        java.util.Arrays.fill(prev, NONE);
        prev[extras] = 0; // after the last piece every extra must have been given
        long[] takeExtra = new long[(int) (((long) pieces * width + 63) >>> 6)];
        for (int i = pieces - 1; i >= 0; i--) {
            java.util.Arrays.fill(best, NONE);
            int lo = Math.max(0, extras - (eligibleBefore[pieces] - eligibleBefore[i])), hi = Math.min(eligibleBefore[i], extras);
            for (int e = lo; e <= hi; e++) {
                int with = eligible[i] && e < extras && prev[e + 1] != NONE ? cut(levels, i, pieces, ends, e + 1) + prev[e + 1] : NONE;
                int without = prev[e] != NONE ? cut(levels, i, pieces, ends, e) + prev[e] : NONE;
                if (with != NONE && with >= without) {
                    best[e] = with;
                    long bit = (long) i * width + e;
                    takeExtra[(int) (bit >>> 6)] |= 1L << bit;
                } else {
                    best[e] = without;
                }
            }
            int[] t = prev; prev = best; best = t;
        }
        for (int i = 0, e = 0; i < pieces; i++) {
            long bit = (long) i * width + e;
            if ((takeExtra[(int) (bit >>> 6)] & (1L << bit)) != 0) {
                sizes[i]++;
                e++;
            }
        }
        return sizes;
    }

    /** The level of the cut after piece {@code i} when pieces {@code 0..i} hold {@code e} extras. */
    private static int cut(int[] levels, int i, int pieces, int[] ends, int e) {
        return i == pieces - 1 ? 0 : levels[ends[i] + e - 1];
    }
}
