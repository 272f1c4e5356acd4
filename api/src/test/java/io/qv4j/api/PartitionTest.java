package io.qv4j.api;

import io.qv4j.api.Partition.Axis;
import io.qv4j.api.Partition.Box;
import io.qv4j.api.Partition.Boxes;
import io.qv4j.api.Partition.Orb;
import io.qv4j.api.Partition.Range;
import io.qv4j.api.Partition.Ranges;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Locale;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PartitionTest {

    private static final long[] SEED = {1, 1, 2, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 2, 2, 1};

    private static long[] loads(Ranges r) {
        return r.parts().stream().mapToLong(Range::load).toArray();
    }

    @Test
    void seedExampleOrbGivesFiveSixSixFive() {
        Ranges orb = Partition.orb(SEED, 4);
        assertArrayEquals(new long[]{5, 6, 6, 5}, loads(orb));
        assertEquals(List.of(new Range(0, 4, 5), new Range(4, 7, 6), new Range(7, 13, 6), new Range(13, 16, 5)), orb.parts());
        assertEquals(6, orb.max());
    }

    @Test
    void seedExampleExactHeaviestPartIsSix() {
        Ranges exact = Partition.exact(SEED, 4);
        assertEquals(6, exact.max());
        assertEquals(22, exact.total());
        assertValidRanges(SEED, exact, 4);
    }

    @Test
    void twoEightNineIntoThreeIsNineExactAndTenForOrb() {
        long[] w = {2, 8, 9};
        assertEquals(9, Partition.exact(w, 3).max());
        Ranges orb = Partition.orb(w, 3);
        assertEquals(10, orb.max());
        // the proportional first cut: one part on the left, two on the right
        assertEquals(List.of(new Range(0, 2, 10), new Range(2, 3, 9), new Range(3, 3, 0)), orb.parts());
    }

    @Test
    void exactIsOptimalAndOrbNeverBetterAgainstBruteForce() {
        Random rnd = new Random(8);
        int cases = 0;
        for (int round = 0; round < 16; round++) {
            for (int n = 0; n <= 14; n++) {
                for (int parts = 1; parts <= 5; parts++) {
                    final int p = parts;
                    long[] w = new long[n];
                    int bound = switch (round % 4) { case 0 -> 3; case 1 -> 10; case 2 -> 1000; default -> 1 << 20; };
                    for (int i = 0; i < n; i++) w[i] = rnd.nextInt(bound) * (rnd.nextInt(5) == 0 ? 0L : 1L);
                    long best = bruteForce(w, p);
                    Ranges exact = Partition.exact(w, p);
                    assertValidRanges(w, exact, p);
                    assertEquals(best, exact.max(), () -> "exact of " + java.util.Arrays.toString(w) + " into " + p);
                    Ranges orb = Partition.orb(w, p);
                    assertValidRanges(w, orb, p);
                    assertTrue(orb.max() >= best, () -> "orb beat the optimum on " + java.util.Arrays.toString(w));
                    Ranges orbH = Partition.orb(w, p, Orb.hierarchical(3));
                    assertValidRanges(w, orbH, p);
                    assertTrue(orbH.max() >= best);
                    cases++;
                }
            }
        }
        assertTrue(cases >= 1000, "cases: " + cases);
    }

    /** The lightest heaviest part over every way of cutting {@code w} into {@code p} contiguous (possibly empty) parts. */
    private static long bruteForce(long[] w, int p) {
        long[] pre = new long[w.length + 1];
        for (int i = 0; i < w.length; i++) pre[i + 1] = pre[i] + w[i];
        return best(pre, 0, p);
    }

    private static long best(long[] pre, int from, int parts) {
        int n = pre.length - 1;
        if (parts == 1) return pre[n] - pre[from];
        long best = Long.MAX_VALUE;
        for (int c = from; c <= n; c++) best = Math.min(best, Math.max(pre[c] - pre[from], best(pre, c, parts - 1)));
        return best;
    }

    private static void assertValidRanges(long[] w, Ranges r, int parts) {
        assertEquals(parts, r.count());
        int at = 0;
        for (Range x : r.parts()) {
            assertEquals(at, x.from(), "contiguous, in order: " + r);
            assertTrue(x.to() >= x.from());
            long load = 0;
            for (int i = x.from(); i < x.to(); i++) load += w[i];
            assertEquals(load, x.load(), "load of " + x);
            at = x.to();
        }
        assertEquals(w.length, at, "covers every weight: " + r);
    }

    @Test
    void morePartsThanWeightsLeavesEmptyPartsAndKeepsEveryWeight() {
        Ranges r = Partition.exact(new long[]{5, 1}, 4);
        assertValidRanges(new long[]{5, 1}, r, 4);
        assertEquals(5, r.max());
        assertEquals(2, r.parts().stream().filter(x -> !x.isEmpty()).count());
    }

    @Test
    void zeroWeightsAreSharedOutLikeSpace() {
        long[] zeros = new long[12];
        assertEquals(List.of(new Range(0, 3, 0), new Range(3, 6, 0), new Range(6, 9, 0), new Range(9, 12, 0)),
                Partition.exact(zeros, 4).parts());
        assertEquals(List.of(new Range(0, 3, 0), new Range(3, 6, 0), new Range(6, 9, 0), new Range(9, 12, 0)),
                Partition.orb(zeros, 4).parts());
    }

    @Test
    void exactSpreadsLightPartsInsteadOfLeavingTheLastEmpty() {
        // greedy with bound 2 would give 2, 2, 0
        assertArrayEquals(new long[]{1, 2, 1}, loads(Partition.exact(new long[]{1, 1, 1, 1}, 3)));
    }

    @Test
    void exactHandlesHugeWeightsWithoutOverflow() {
        long big = Long.MAX_VALUE / 4;
        Ranges r = Partition.exact(new long[]{big, big, big, 1}, 2);
        assertEquals(2 * big, r.max());
        assertEquals(3 * big + 1, r.total());
        assertThrows(IllegalArgumentException.class, () -> Partition.exact(new long[]{big, big, big, big, big}, 2));
    }

    @Test
    void negativeWeightIsAnErrorNamingItsIndex() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Partition.exact(new long[]{1, 2, -3}, 2));
        assertTrue(e.getMessage().contains("[2]") && e.getMessage().contains("-3"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Partition.orb(new long[][]{{1, 2}, {3, -4}}, 2));
        assertTrue(e.getMessage().contains("[1][1]"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1})
    void partsBelowOneAreAnError(int parts) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Partition.exact(new long[]{1}, parts));
        assertTrue(e.getMessage().contains(String.valueOf(parts)), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Partition.orb(new long[]{1}, parts));
    }

    @Test
    void raggedGridIsAnError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Partition.orb(new long[][]{{1, 2}, {3}}, 2));
        assertTrue(e.getMessage().contains("row [1]"), e.getMessage());
    }

    /** A Gaussian bump near one corner plus a gradient along the rows: values 1..~1000. */
    private static long[][] smoothField(int n) {
        long[][] w = new long[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                double x = (double) i / n, y = (double) j / n;
                double bump = 800 * Math.exp(-((x - 0.3) * (x - 0.3) + (y - 0.65) * (y - 0.65)) / (2 * 0.08 * 0.08));
                w[i][j] = 1 + Math.round(200 * x + 50 * y + bump);
            }
        }
        return w;
    }

    @Test
    void orbOnSmoothThousandSquareGridInto64PartsIsWithinFivePercentOfAverage(TestReporter report) {
        long[][] w = smoothField(1000);
        for (Orb how : List.of(Orb.DEFAULT, Orb.DEFAULT.with(Axis.ALTERNATE), Orb.hierarchical(4), Orb.hierarchical(8))) {
            Boxes b = Partition.orb(w, 64, how);
            double average = (double) b.total() / 64;
            double ratio = b.max() / average;
            String line = String.format(Locale.ROOT, "2-D ORB 1000x1000 into 64 (%s, %d strips): heaviest / average = %.4f",
                    how.axis(), how.strips(), ratio);
            System.out.println(line);
            report.publishEntry("orb-2d-" + how.axis() + "-" + how.strips(), String.format(Locale.ROOT, "%.4f", ratio));
            assertTrue(ratio <= 1.05, line);
            assertCoversOnce(new int[]{1000, 1000}, b, (i, j, k) -> w[i][j]);
        }
    }

    interface Cell {
        long at(int i, int j, int k);
    }

    /** Every cell in exactly one box; each box's load is the sum of its cells; loads sum to the total. */
    private static void assertCoversOnce(int[] shape, Boxes boxes, Cell weight) {
        int n0 = shape[0], n1 = shape[1], n2 = shape.length > 2 ? shape[2] : 1;
        byte[] seen = new byte[n0 * n1 * n2];
        long total = 0;
        for (int i = 0; i < n0; i++) for (int j = 0; j < n1; j++) for (int k = 0; k < n2; k++) total += weight.at(i, j, k);
        long sum = 0;
        for (Box b : boxes.parts()) {
            long load = 0;
            int k0 = shape.length > 2 ? b.lo(2) : 0, k1 = shape.length > 2 ? b.hi(2) : 1;
            for (int i = b.lo(0); i < b.hi(0); i++) {
                for (int j = b.lo(1); j < b.hi(1); j++) {
                    for (int k = k0; k < k1; k++) {
                        int flat = (i * n1 + j) * n2 + k;
                        assertEquals(0, seen[flat]++, "cell covered twice by " + b);
                        load += weight.at(i, j, k);
                    }
                }
            }
            assertEquals(load, b.load(), "load of " + b);
            sum += b.load();
        }
        for (byte s : seen) assertEquals(1, s, "every cell covered");
        assertEquals(total, sum);
        assertEquals(total, boxes.total());
    }

    @Test
    void threeDimensionalOrbAndOrbHCoverEveryCellOnce() {
        Random rnd = new Random(3);
        int[] shape = {23, 17, 11};
        long[][][] w = new long[23][17][11];
        for (long[][] plane : w) for (long[] row : plane) for (int k = 0; k < row.length; k++) row[k] = rnd.nextInt(100);
        for (int parts : new int[]{1, 2, 3, 7, 12, 64, 5000}) {
            for (Orb how : List.of(Orb.DEFAULT, Orb.DEFAULT.with(Axis.ALTERNATE), Orb.hierarchical(3), Orb.hierarchical(5).with(Axis.ALTERNATE))) {
                Boxes b = Partition.orb(w, parts, how);
                assertEquals(parts, b.count());
                assertCoversOnce(shape, b, (i, j, k) -> w[i][j][k]);
            }
        }
    }

    @Test
    void twoDimensionalOrbHCoversEveryCellOnceForAnyPartCount() {
        Random rnd = new Random(4);
        long[][] w = new long[37][29];
        for (long[] row : w) for (int j = 0; j < row.length; j++) row[j] = rnd.nextInt(7) == 0 ? 0 : rnd.nextInt(1000);
        for (int parts = 1; parts <= 40; parts++) {
            for (Orb how : List.of(Orb.DEFAULT, Orb.hierarchical(3), Orb.hierarchical(4).with(Axis.ALTERNATE))) {
                assertCoversOnce(new int[]{37, 29}, Partition.orb(w, parts, how), (i, j, k) -> w[i][j]);
            }
        }
    }

    @Test
    void longestAxisIsCutFirst() {
        Boxes b = Partition.orb(new long[4][100], 2);
        assertEquals(new Box(new int[]{0, 0}, new int[]{4, 50}, 0), b.part(0));
        assertEquals(new Box(new int[]{0, 50}, new int[]{4, 100}, 0), b.part(1));
        Boxes alt = Partition.orb(new long[4][100], 2, Orb.DEFAULT.with(Axis.ALTERNATE));
        assertEquals(new Box(new int[]{0, 0}, new int[]{2, 100}, 0), alt.part(0));
    }

    @Test
    void orbHCutsKStripsPerLevel() {
        long[] w = new long[12];
        java.util.Arrays.fill(w, 1);
        // 9 parts in 3 strips of 3 parts: each level cuts in thirds
        Ranges r = Partition.orb(new long[90], 9, Orb.hierarchical(3));
        for (int i = 0; i < 9; i++) assertEquals(new Range(10 * i, 10 * i + 10, 0), r.part(i));
        assertArrayEquals(new long[]{3, 3, 3, 3}, loads(Partition.orb(w, 4, Orb.hierarchical(4))));
    }
}
