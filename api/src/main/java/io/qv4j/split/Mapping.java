package io.qv4j.split;

import io.qv4j.topology.HwObject;

import java.util.Arrays;
import java.util.List;

/**
 * Tasks mapped onto pieces by color (DESIGN.md §4.3). Tasks are numbered by their position in
 * {@code (key, rank)} order ({@link #order}); the task at position {@code i} gets pieces
 * {@code first[i] .. end[i]-1}, none when {@code first[i] == end[i]} (UNDEFINED).
 */
public record Mapping(int[] first, int[] end) {

    public int tasks() {
        return first.length;
    }

    /** Ranks sorted by {@code (keys[rank], rank)}, as {@code MPI_Comm_split} orders a color's members. */
    public static int[] order(int[] keys) {
        // key in the high half, rank in the low half: one primitive sort, no comparator (the agent
        // plans its first pool in a cold JVM, where each lambda costs a bootstrap)
        long[] packed = new long[keys.length];
        boolean sorted = true;
        for (int i = 0; i < keys.length; i++) {
            packed[i] = ((long) keys[i] << 32) | i;
            sorted &= i == 0 || packed[i - 1] < packed[i];
        }
        // Keys in rank order (all equal, as the agent's are) need no sort: on JDK 22 and later the
        // first primitive sort of a JVM spins a lambda, milliseconds cold, on the worker that plans
        if (!sorted) Arrays.sort(packed);
        int[] ranks = new int[keys.length];
        for (int i = 0; i < ranks.length; i++) ranks[i] = (int) packed[i];
        return ranks;
    }

    private static Mapping onePieceEach(int[] piece) {
        int[] end = new int[piece.length];
        for (int i = 0; i < piece.length; i++) end[i] = piece[i] + 1;
        return new Mapping(piece, end);
    }

    /** UNDEFINED: no task gets a piece. */
    public static Mapping undefined(int tasks) {
        return new Mapping(new int[tasks], new int[tasks]);
    }

    /** An ordinal color: every task on piece {@code piece}. */
    public static Mapping ordinal(int tasks, int piece) {
        int[] p = new int[tasks];
        Arrays.fill(p, piece);
        return onePieceEach(p);
    }

    /**
     * PACKED: task {@code i} on piece {@code i} while {@code T ≤ P}; beyond, piece {@code j} gets
     * a block of consecutive tasks, {@code ⌈T/P⌉} for the first {@code T mod P} pieces and
     * {@code ⌊T/P⌋} for the rest.
     */
    public static Mapping packed(int tasks, int pieces) {
        int[] p = new int[tasks];
        int base = tasks / pieces, extra = tasks % pieces;
        int task = 0;
        for (int j = 0; j < pieces && task < tasks; j++) {
            int block = tasks <= pieces ? 1 : base + (j < extra ? 1 : 0);
            for (int k = 0; k < block; k++) p[task++] = j;
        }
        return onePieceEach(p);
    }

    /** SPREAD with {@code T > P}: cyclic, task {@code i} on piece {@code i mod P}. */
    public static Mapping cyclic(int tasks, int pieces) {
        int[] p = new int[tasks];
        for (int i = 0; i < tasks; i++) p[i] = i % pieces;
        return onePieceEach(p);
    }

    /**
     * SPREAD with {@code T ≤ P}: as far apart as possible, hierarchically. Walking down the tree
     * above the pieces, each subtree gets a share of the tasks proportional to its number of
     * pieces, {@code ⌈cum·T/P⌉ − ⌈prev·T/P⌉} (earlier subtrees take the extra); inside a subtree
     * the same again; tasks keep their order.
     *
     * @param paths for each piece (in logical order), the objects from the root down to the
     *              smallest object that holds the whole piece
     */
    public static Mapping spread(int tasks, List<HwObject[]> paths) {
        if (tasks > paths.size()) return cyclic(tasks, paths.size());
        int[] p = new int[tasks];
        spread(paths, 0, paths.size(), 0, tasks, 0, p);
        return onePieceEach(p);
    }

    /**
     * Gives {@code tasks} tasks (from {@code firstTask} on) to pieces {@code lo..hi-1}, which all
     * lie below {@code paths[lo][depth-1]}: the subtrees at {@code depth} are runs of pieces with
     * the same object there; a piece whose path ends earlier is a subtree of its own.
     */
    private static void spread(List<HwObject[]> paths, int lo, int hi, int depth, int tasks, int firstTask, int[] out) {
        if (tasks == 0) return;
        if (hi - lo == 1) {
            out[firstTask] = lo; // tasks ≤ pieces, so exactly one
            return;
        }
        long n = hi - lo;
        int given = 0;
        for (int start = lo; start < hi; ) {
            HwObject subtree = at(paths.get(start), depth);
            int end = start + 1;
            while (subtree != null && end < hi && at(paths.get(end), depth) == subtree) end++;
            int share = (int) (ceilDiv((end - lo) * (long) tasks, n) - ceilDiv((start - lo) * (long) tasks, n));
            spread(paths, start, end, depth + 1, share, firstTask + given, out);
            given += share;
            start = end;
        }
    }

    private static HwObject at(HwObject[] path, int depth) {
        return depth < path.length ? path[depth] : null;
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    /**
     * AUTO: every piece used. With {@code T ≤ P} task {@code i} gets a contiguous block of
     * {@code ⌊P/T⌋} or {@code ⌈P/T⌉} pieces, the blocks placed like the units of a regular split
     * (highest boundaries between blocks, extras first); with {@code T > P}, as PACKED.
     *
     * @param levels {@code levels[j]}: the boundary level between piece {@code j} and {@code j+1}
     */
    public static Mapping auto(int tasks, int[] levels) {
        int pieces = levels.length + 1;
        if (tasks > pieces) return packed(tasks, pieces);
        int[] sizes = tasks == 0 ? new int[0] : CutPlacement.sizes(levels, tasks);
        int[] first = new int[tasks], end = new int[tasks];
        for (int i = 0, j = 0; i < tasks; j += sizes[i], i++) {
            first[i] = j;
            end[i] = j + sizes[i];
        }
        return new Mapping(first, end);
    }
}
