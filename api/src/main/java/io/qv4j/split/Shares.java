package io.qv4j.split;

import java.util.Arrays;

/**
 * How a group split divides its scope among color classes (DESIGN.md §5): in class order, class
 * {@code i} gets a contiguous share of the units proportional to its member count,
 * {@code ⌈cum·U/n⌉ − ⌈prev·U/n⌉} units.
 */
public final class Shares {

    private Shares() {
    }

    /**
     * @return {@code [first, end)} unit ranges per class, as {@code {first0, end0, first1, end1, …}};
     *         a class whose range is empty takes its neighbour's (the previous class's, or the
     *         next one's for a leading class)
     * @throws IllegalArgumentException when a count is negative or all are 0
     */
    public static int[] ranges(int units, int[] counts) {
        long n = 0;
        for (int c : counts) {
            if (c < 0) throw new IllegalArgumentException("negative member count " + c + " in " + Arrays.toString(counts));
            n += c;
        }
        if (n == 0) throw new IllegalArgumentException("no members to share among: counts " + Arrays.toString(counts));
        int[] r = new int[2 * counts.length];
        long cum = 0;
        for (int i = 0; i < counts.length; i++) {
            r[2 * i] = (int) ((cum * units + n - 1) / n);
            cum += counts[i];
            r[2 * i + 1] = (int) ((cum * units + n - 1) / n);
        }
        int firstNonEmpty = 0;
        while (r[2 * firstNonEmpty] == r[2 * firstNonEmpty + 1]) firstNonEmpty++;
        for (int i = 0; i < counts.length; i++) {
            if (r[2 * i] != r[2 * i + 1]) continue;
            int from = i < firstNonEmpty ? firstNonEmpty : i - 1;
            r[2 * i] = r[2 * from];
            r[2 * i + 1] = r[2 * from + 1];
        }
        return r;
    }
}
