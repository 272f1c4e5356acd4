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
}
