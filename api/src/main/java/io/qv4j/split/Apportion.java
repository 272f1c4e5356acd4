package io.qv4j.split;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Units for a weighted split: {@code U} units among {@code P} pieces in proportion to weights, by
 * largest remainders, every piece at least one unit. The arithmetic is exact ({@code double}
 * weights are binary fractions), so equal remainders are really equal.
 *
 * <ol>
 *   <li>A piece whose quota {@code U·w/W} is below 1 gets 1 unit; the others share what is left
 *       by their weights, and again until every remaining quota is at least 1.</li>
 *   <li>Each remaining piece gets {@code ⌊quota⌋} units; the {@code r} units left over go one each
 *       to the pieces with the largest remainders.</li>
 *   <li>Where several pieces tie at the last remainder that still gets a unit, the cut rule of a
 *       regular split decides among them ({@link CutPlacement}: cuts on the highest boundaries,
 *       ties to the earliest pieces). With equal weights this is exactly the regular split.</li>
 * </ol>
 */
public final class Apportion {

    /**
     * @param base     units every piece surely gets
     * @param eligible pieces tied for the remaining extras
     * @param extras   how many of the eligible pieces get one unit more
     */
    public record Shares(int[] base, boolean[] eligible, int extras) {
    }

    private Apportion() {
    }

    /**
     * Checks weights: at least one, each finite and {@code ≥ 0}, not all 0.
     *
     * @throws IllegalArgumentException naming the index of a bad weight
     */
    public static void check(double[] weights) {
        if (weights.length == 0) throw new IllegalArgumentException("cannot split by no weights: give one weight per piece");
        boolean positive = false;
        for (int i = 0; i < weights.length; i++) {
            double w = weights[i];
            if (!Double.isFinite(w)) throw new IllegalArgumentException("weight [" + i + "] is " + w + ": weights must be finite");
            if (w < 0) throw new IllegalArgumentException("weight [" + i + "] is negative (" + w + "): weights must be >= 0");
            positive |= w > 0;
        }
        if (!positive) throw new IllegalArgumentException("cannot split by weights that are all 0: " + java.util.Arrays.toString(weights));
    }

    /** The shares of {@code units} units; requires {@code 1 ≤ P ≤ units} and {@link #check checked} weights. */
    public static Shares of(int units, double[] weights) {
        int p = weights.length;
        BigDecimal[] w = new BigDecimal[p];
        for (int i = 0; i < p; i++) w[i] = new BigDecimal(weights[i]);
        boolean[] pinned = new boolean[p];
        int free = units;
        BigDecimal total;
        boolean changed;
        do {
            changed = false;
            total = BigDecimal.ZERO;
            for (int i = 0; i < p; i++) if (!pinned[i]) total = total.add(w[i]);
            BigDecimal u = BigDecimal.valueOf(free);
            for (int i = 0; i < p; i++) {
                if (!pinned[i] && (total.signum() == 0 || u.multiply(w[i]).compareTo(total) < 0)) {
                    pinned[i] = true;
                    free--;
                    changed = true;
                }
            }
        } while (changed);

        int[] base = new int[p];
        BigDecimal[] remainder = new BigDecimal[p];
        List<Integer> open = new ArrayList<>();
        int given = 0;
        BigDecimal u = BigDecimal.valueOf(free);
        for (int i = 0; i < p; i++) {
            if (pinned[i]) {
                base[i] = 1;
                continue;
            }
            BigDecimal[] qr = u.multiply(w[i]).divideAndRemainder(total);
            base[i] = qr[0].intValueExact();
            remainder[i] = qr[1];
            given += base[i];
            open.add(i);
        }
        int extras = free - given;
        boolean[] eligible = new boolean[p];
        if (extras == 0) return new Shares(base, eligible, 0);
        open.sort(Comparator.comparing((Integer i) -> remainder[i]).reversed());
        BigDecimal last = remainder[open.get(extras - 1)];
        int tied = extras;
        for (int i : open) {
            int c = remainder[i].compareTo(last);
            if (c > 0) {
                base[i]++;
                tied--;
            } else if (c == 0) {
                eligible[i] = true;
            }
        }
        return new Shares(base, eligible, tied);
    }
}
