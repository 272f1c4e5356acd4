package io.qv4j.agent.cli.compare;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The arithmetic of {@code compare}: each arm's spread of a figure, the verdict against the
 * no-agent arm, and the order the arms run in each round. Pure functions.
 */
public final class CompareStats {

    /** The fewest counted runs of each arm for a verdict: with 3 and 3, disjoint ranges by chance alone come 1 time in 10. */
    public static final int MIN_RUNS = 3;

    static final String BETTER = "better";
    static final String WORSE = "worse";
    static final String UNRESOLVED = "not resolved";

    private CompareStats() {
    }

    /** A figure over one arm's counted runs: how many, median, least and greatest (rounded as printed). */
    record Spread(int n, double median, double min, double max) {
    }

    /** The spread of {@code values}; null when there are none. */
    static Spread spread(List<Double> values) {
        if (values.isEmpty()) return null;
        List<Double> v = new ArrayList<>(values);
        Collections.sort(v);
        int n = v.size();
        double median = n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
        return new Spread(n, round(median), round(v.get(0)), round(v.get(n - 1)));
    }

    /**
     * {@code arm} against {@code base}: better or worse only when both have {@link #MIN_RUNS} runs
     * or more and the ranges do not overlap, every run of the arm beyond every run of the base on
     * one side. Without a difference, all m runs of one arm fall on one side of all n of the other
     * with probability 2 / C(m+n, n): 10 % at 3 and 3, 0.8 % at 5 and 5. Anything else is not resolved.
     */
    static String verdict(Spread base, Spread arm, boolean lowerIsBetter) {
        if (base == null || arm == null || base.n() < MIN_RUNS || arm.n() < MIN_RUNS) return UNRESOLVED;
        if (arm.max() < base.min()) return lowerIsBetter ? BETTER : WORSE;
        if (arm.min() > base.max()) return lowerIsBetter ? WORSE : BETTER;
        return UNRESOLVED;
    }

    /** The arm's median over the base's; null when either is missing or the base's is 0. */
    static Double ratio(Spread base, Spread arm) {
        if (base == null || arm == null || base.median() == 0) return null;
        return round(arm.median() / base.median());
    }

    /**
     * The arms' order in {@code round} (0 is the warm-up): rotated by round/2 places, reversed in
     * odd rounds. Over every 2k rounds each of k arms runs in each position equally often, and
     * with two arms each runs first in every other pair of rounds (AB BA BA AB ...), so neither a
     * warming machine nor the run before favours one arm.
     */
    static List<Integer> order(int round, int arms) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < arms; i++) out.add((i + round / 2) % arms);
        if (round % 2 == 1) Collections.reverse(out);
        return out;
    }

    /** {@code x} to 4 significant digits: what text, JSON and SVG all print. */
    static double round(double x) {
        if (x == 0 || !Double.isFinite(x)) return x;
        return new BigDecimal(x).round(new MathContext(4)).doubleValue();
    }

    /** A number as printed: plain digits, no exponent, no trailing zeros. */
    static String fmt(double x) {
        return BigDecimal.valueOf(x).stripTrailingZeros().toPlainString();
    }
}
