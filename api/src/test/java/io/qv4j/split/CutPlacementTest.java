package io.qv4j.split;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** The cut-placement dynamic program against brute force over every arrangement of the extras. */
class CutPlacementTest {

    @Test
    void dynamicProgramFindsTheHighestScoringCuts_tiesGiveExtrasToTheEarliestPieces() {
        Random random = new Random(42);
        for (int round = 0; round < 3000; round++) {
            int units = 1 + random.nextInt(16);
            int pieces = 1 + random.nextInt(units);
            int[] levels = new int[units - 1];
            int maxLevel = 1 + random.nextInt(5); // few distinct levels: many ties
            for (int i = 0; i < levels.length; i++) levels[i] = random.nextInt(maxLevel + 1);
            assertArrayEquals(bruteForce(levels, pieces), CutPlacement.sizes(levels, pieces),
                    "levels " + Arrays.toString(levels) + ", " + pieces + " pieces");
        }
    }

    /** Tries extras patterns from "all first" onwards (lexicographically descending); keeps the first best. */
    private static int[] bruteForce(int[] levels, int pieces) {
        int units = levels.length + 1, base = units / pieces, extras = units % pieces;
        int[] best = null;
        int bestScore = -1;
        for (int mask = (1 << pieces) - 1; mask >= 0; mask--) {
            if (Integer.bitCount(mask) != extras) continue;
            int[] sizes = new int[pieces];
            int score = 0, pos = 0;
            for (int i = 0; i < pieces; i++) {
                // bit (pieces-1-i) is piece i, so descending masks put extras on early pieces first
                sizes[i] = base + ((mask >> (pieces - 1 - i)) & 1);
                pos += sizes[i];
                if (i < pieces - 1) score += levels[pos - 1];
            }
            if (score > bestScore) {
                bestScore = score;
                best = sizes;
            }
        }
        return best;
    }

    @Test
    void generalFormWithUnequalBasesAndEligiblePiecesMatchesBruteForce() {
        Random random = new Random(7);
        for (int round = 0; round < 3000; round++) {
            int pieces = 1 + random.nextInt(8);
            int[] base = new int[pieces];
            boolean[] eligible = new boolean[pieces];
            int units = 0, open = 0;
            for (int i = 0; i < pieces; i++) {
                units += base[i] = 1 + random.nextInt(3);
                if (eligible[i] = random.nextBoolean()) open++;
            }
            int extras = open == 0 ? 0 : random.nextInt(open + 1);
            units += extras;
            int[] levels = new int[units - 1];
            for (int i = 0; i < levels.length; i++) levels[i] = random.nextInt(4);
            assertArrayEquals(bruteForce(levels, base, eligible, extras), CutPlacement.sizes(levels, base, eligible, extras),
                    "levels " + Arrays.toString(levels) + ", base " + Arrays.toString(base) + ", eligible " + Arrays.toString(eligible));
        }
    }

    private static int[] bruteForce(int[] levels, int[] base, boolean[] eligible, int extras) {
        int pieces = base.length;
        int[] best = null;
        int bestScore = -1;
        for (int mask = (1 << pieces) - 1; mask >= 0; mask--) {
            if (Integer.bitCount(mask) != extras) continue;
            int[] sizes = base.clone();
            boolean ok = true;
            int score = 0, pos = 0;
            for (int i = 0; i < pieces; i++) {
                int extra = (mask >> (pieces - 1 - i)) & 1;
                if (extra == 1 && !eligible[i]) ok = false;
                sizes[i] += extra;
                pos += sizes[i];
                if (i < pieces - 1) score += levels[pos - 1];
            }
            if (ok && score > bestScore) {
                bestScore = score;
                best = sizes;
            }
        }
        return best;
    }
}
