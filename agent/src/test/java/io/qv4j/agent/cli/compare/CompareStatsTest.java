package io.qv4j.agent.cli.compare;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The verdict rule and the order of the arms in each round. */
class CompareStatsTest {

    private static CompareStats.Spread s(Double... values) {
        return CompareStats.spread(List.of(values));
    }

    @Test
    void spreadIsMedianMinMaxRoundedToFourDigits() {
        assertEquals(new CompareStats.Spread(3, 2.0, 1.0, 3.0), s(3.0, 1.0, 2.0));
        assertEquals(new CompareStats.Spread(4, 2.5, 1.0, 4.0), s(4.0, 1.0, 3.0, 2.0));
        assertEquals(new CompareStats.Spread(1, 1.235, 1.235, 1.235), s(1.23456));
        assertNull(CompareStats.spread(List.of()));
    }

    @Test
    void disjointRangesDecideInTheFiguresDirection() {
        CompareStats.Spread base = s(1.0, 1.1, 1.2);
        CompareStats.Spread slower = s(1.3, 1.5, 1.4);
        CompareStats.Spread faster = s(0.7, 0.9, 0.8);
        assertEquals("worse", CompareStats.verdict(base, slower, true));
        assertEquals("better", CompareStats.verdict(base, faster, true));
        assertEquals("better", CompareStats.verdict(base, slower, false), "a throughput that went up");
        assertEquals("worse", CompareStats.verdict(base, faster, false));
    }

    @Test
    void overlappingOrTouchingRangesAreNotResolved() {
        CompareStats.Spread base = s(1.0, 1.1, 1.2);
        assertEquals("not resolved", CompareStats.verdict(base, s(1.15, 1.5, 1.6), true), "overlap");
        assertEquals("not resolved", CompareStats.verdict(base, s(1.2, 1.5, 1.6), true), "a shared end");
        assertEquals("not resolved", CompareStats.verdict(base, s(0.5, 1.1, 2.0), true), "one range inside the other");
    }

    @Test
    void fewerThanThreeRunsOnEitherSideAreNotResolved() {
        assertEquals("not resolved", CompareStats.verdict(s(1.0, 1.1), s(2.0, 2.1, 2.2), true));
        assertEquals("not resolved", CompareStats.verdict(s(1.0, 1.1, 1.2), s(2.0, 2.1), true));
        assertEquals("not resolved", CompareStats.verdict(null, s(2.0, 2.1, 2.2), true));
    }

    @Test
    void ratioIsOfMedians() {
        assertEquals(1.5, CompareStats.ratio(s(1.0, 2.0, 3.0), s(3.0, 3.0, 4.0)));
        assertNull(CompareStats.ratio(s(0.0, 0.0, 0.0), s(1.0, 1.0, 1.0)));
        assertNull(CompareStats.ratio(null, s(1.0)));
    }

    @Test
    void roundZeroKeepsTheOrderAndOddRoundsReverse() {
        assertEquals(List.of(0, 1, 2), CompareStats.order(0, 3));
        assertEquals(List.of(2, 1, 0), CompareStats.order(1, 3));
        assertEquals(List.of(1, 2, 0), CompareStats.order(2, 3));
        assertEquals(List.of(0), CompareStats.order(5, 1));
    }

    @Test
    void twoArmsAlternateWhoGoesFirstInPairsOfRounds() {
        List<List<Integer>> seen = new ArrayList<>();
        for (int r = 0; r < 6; r++) seen.add(CompareStats.order(r, 2));
        assertEquals(List.of(List.of(0, 1), List.of(1, 0), List.of(1, 0), List.of(0, 1), List.of(0, 1), List.of(1, 0)), seen);
    }

    @Test
    void everyArmRunsInEveryPositionEquallyOftenOverTwiceTheArmsRounds() {
        for (int k = 2; k <= 6; k++) {
            for (int start = 0; start <= 1; start++) { // from the warm-up, and from the first counted round
                int[][] at = new int[k][k];
                Set<List<Integer>> orders = new HashSet<>();
                for (int r = start; r < start + 2 * k; r++) {
                    List<Integer> o = CompareStats.order(r, k);
                    assertEquals(Set.copyOf(o).size(), k, "a permutation: " + o);
                    orders.add(o);
                    for (int pos = 0; pos < k; pos++) at[o.get(pos)][pos]++;
                }
                for (int a = 0; a < k; a++) for (int pos = 0; pos < k; pos++) assertEquals(2, at[a][pos], "k=" + k + " arm " + a + " position " + pos);
                assertEquals(k == 2 ? 2 : 2 * k, orders.size(), "no order repeats within 2k rounds (two arms have but two), k=" + k);
            }
        }
    }
}
