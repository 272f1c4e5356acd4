package io.qv4j.api;

import io.qv4j.topology.HwType;
import io.qv4j.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Scope#splitWeighted}: contiguous pieces with units proportional to weights, §4.1 cuts where the rounding leaves a choice. */
class WeightedSplitTest {

    private static final Topology T = TestTopologies.machine(2, 4, 2); // package:2 core:4 pu:2, 8 cores, 16 PUs

    private static String pieces(Split s) {
        return s.pieces().stream().map(p -> "{" + p.cpuset() + "}").collect(java.util.stream.Collectors.joining(" "));
    }

    private static Scope scope(String spec) {
        return Scope.of(io.qv4j.split.TestTopologies.synthetic(spec));
    }

    @Test
    void unitsFollowTheWeights() {
        assertEquals("{0-11} {12-15}", pieces(Scope.of(T).splitWeighted(3, 1)));
        assertEquals("{0-3} {4-7} {8-15}", pieces(Scope.of(T).splitWeighted(1, 1, 2)));
        assertEquals("{0-9} {10-15}", pieces(Scope.of(T).splitWeighted(0.6, 0.4))); // 4.8 and 3.2 cores → 5, 3
        assertEquals(HwType.CORE, Scope.of(T).splitWeighted(3, 1).unit());
    }

    @ParameterizedTest
    @ValueSource(strings = {"package:2 core:4 pu:2", "package:2 numa:2 l3:1 core:3 pu:2", "l3:3 core:5 pu:1", "package:1 core:7 pu:4"})
    void equalWeightsGiveTheRegularSplit(String spec) {
        Scope s = scope(spec);
        int pus = s.cpuset().cardinality();
        for (int p = 1; p <= pus; p++) {
            double[] w = new double[p];
            java.util.Arrays.fill(w, 2.5);
            assertEquals(pieces(s.split(p)), pieces(s.splitWeighted(w)), spec + " into " + p);
            assertEquals(s.split(p).unit(), s.splitWeighted(w).unit());
        }
    }

    @Test
    void tiedRemaindersCutOnTheHighestBoundary() {
        // l3:2 core:4: 8 cores, an L3 boundary after core 3. Quotas 4.5, 1.5, 2: pieces 0 and 1 tie
        // for the one extra core; giving it to piece 1 puts the first cut on the L3 boundary.
        assertEquals("{0-3} {4-5} {6-7}", pieces(scope("l3:2 core:4 pu:1").splitWeighted(9, 3, 4)));
        // no boundary to gain: the tie goes to the earlier piece, as in a regular split
        assertEquals("{0-4} {5} {6-7}", pieces(scope("package:1 core:8 pu:1").splitWeighted(9, 3, 4)));
    }

    @Test
    void largerRemainderWinsOverABetterBoundary() {
        // quotas 4.6, 1.4, 2: largest remainder gives piece 0 the extra although 4, 2, 2 would cut at the L3
        assertEquals("{0-4} {5} {6-7}", pieces(scope("l3:2 core:4 pu:1").splitWeighted(4.6, 1.4, 2)));
    }

    @Test
    void everyPieceGetsAtLeastOneUnitEvenAtWeightZero() {
        assertEquals("{0-13} {14-15}", pieces(Scope.of(T).splitWeighted(1, 0)));
        assertEquals("{0-11} {12-13} {14-15}", pieces(Scope.of(T).splitWeighted(100, 1, 1)));
        // more pieces than cores: PUs
        Split fine = Scope.of(T).splitWeighted(100, 1, 1, 1, 1, 1, 1, 1, 1);
        assertEquals(HwType.PU, fine.unit());
        assertEquals("{0-7} {8} {9} {10} {11} {12} {13} {14} {15}", pieces(fine));
    }

    @Test
    void sizesStayWithinOneUnitOfTheirQuota() {
        Random rnd = new Random(11);
        Scope s = scope("package:2 numa:2 l3:2 core:8 pu:2"); // 64 cores
        for (int round = 0; round < 300; round++) {
            int p = 1 + rnd.nextInt(20);
            double[] w = new double[p];
            double total = 0;
            for (int i = 0; i < p; i++) total += w[i] = 1 + rnd.nextInt(50);
            Split split = s.splitWeighted(w);
            int cores = 0;
            for (int i = 0; i < p; i++) {
                int size = split.pieces().get(i).cpuset().cardinality() / 2;
                cores += size;
                double quota = 64 * w[i] / total;
                if (quota >= 1) assertTrue(Math.abs(size - quota) < 1 + 1e-9, "piece " + i + " has " + size + " cores for quota " + quota);
                else assertEquals(1, size);
            }
            assertEquals(64, cores);
        }
    }

    @Test
    void badWeightsAreErrorsNamingTheIndex() {
        Scope s = Scope.of(T);
        assertEquals("weight [1] is negative (-1.0): weights must be >= 0",
                assertThrows(IllegalArgumentException.class, () -> s.splitWeighted(1, -1)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> s.splitWeighted(1, Double.NaN, 2)).getMessage().contains("[1]"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> s.splitWeighted(0, 0)).getMessage().contains("all 0"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> s.splitWeighted()).getMessage().contains("no weights"));
        assertEquals("cannot split 16 PUs into 17 pieces",
                assertThrows(IllegalArgumentException.class, () -> s.splitWeighted(ones(17))).getMessage());
    }

    private static double[] ones(int n) {
        double[] w = new double[n];
        java.util.Arrays.fill(w, 1);
        return w;
    }
}
