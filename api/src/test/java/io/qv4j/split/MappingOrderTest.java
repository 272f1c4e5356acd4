package io.qv4j.split;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** {@link Mapping#order}: ranks by (key, rank), as MPI_Comm_split orders a color's members. */
class MappingOrderTest {

    private static int[] expected(int[] keys) {
        return IntStream.range(0, keys.length).boxed()
                .sorted(Comparator.<Integer>comparingInt(r -> keys[r]).thenComparingInt(r -> r))
                .mapToInt(Integer::intValue).toArray();
    }

    @Test
    void keysInRankOrderKeepTheRanksAndOthersAreSortedByKeyThenRank() {
        assertArrayEquals(new int[] {0, 1, 2, 3}, Mapping.order(new int[] {0, 0, 0, 0}));
        assertArrayEquals(new int[] {0, 1, 2}, Mapping.order(new int[] {-5, 0, 7}));
        assertArrayEquals(new int[] {2, 0, 3, 1}, Mapping.order(new int[] {1, 2, 0, 1}));
        assertArrayEquals(new int[0], Mapping.order(new int[0]));
        Random r = new Random(7);
        for (int n = 0; n < 500; n++) {
            int[] keys = r.ints(r.nextInt(40), -3, r.nextBoolean() ? 3 : Integer.MAX_VALUE).toArray();
            if (r.nextInt(4) == 0) Arrays.sort(keys);
            assertArrayEquals(expected(keys), Mapping.order(keys), () -> Arrays.toString(keys));
        }
    }
}
