package io.qv4j.api;

import io.qv4j.partition.Linear;
import io.qv4j.partition.Prefix;
import io.qv4j.partition.Sectioning;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Partitions of work given as weights: an array of per-index costs cut into contiguous ranges, or
 * a 2-D/3-D grid of per-cell costs cut into boxes, so that each part carries about the same work
 * (orthogonal recursive bisection). Pure and JDK only.
 *
 * <p>Weights are non-negative {@code long}s (a negative weight is an error naming its index), so
 * loads are exact and "optimal" means optimal; costs with fractions are scaled first (say to
 * nanoseconds or thousandths). Their total must fit in a {@code long}. Zero weights are fine.
 *
 * <p>Tasks: part {@code i} belongs to task {@code i} of a {@link TaskGroup} (or worker {@code i} of
 * a pool): {@code partition.part(member.rank())}. There may be more parts than weights or cells;
 * the extra parts are empty ({@code from == to}), and the task that gets one has nothing to do.
 *
 * <pre>{@code
 * long[] cost = ...;                                   // cost[i]: work of item i
 * Partition.Ranges parts = Partition.exact(cost, group.size());
 * Partition.Range mine = parts.part(member.rank());
 * for (int i = mine.from(); i < mine.to(); i++) work(i);
 * }</pre>
 */
public final class Partition {

    private Partition() {
    }

    /** Part of a 1-D partition: indexes {@code [from, to)} and the sum of their weights. */
    public record Range(int from, int to, long load) {
        public int size() {
            return to - from;
        }

        public boolean isEmpty() {
            return to == from;
        }
    }

    /** A 1-D partition: contiguous ranges in index order that cover every index once; part {@code i} ↔ task {@code i}. */
    public record Ranges(List<Range> parts) {
        public Ranges {
            parts = List.copyOf(parts);
        }

        /** The load of the heaviest part (the bottleneck), 0 without weights. */
        public long max() {
            long m = 0;
            for (Range r : parts) m = Math.max(m, r.load());
            return m;
        }

        /** The sum of all weights. */
        public long total() {
            long t = 0;
            for (Range r : parts) t += r.load();
            return t;
        }

        public int count() {
            return parts.size();
        }

        /** Task {@code i}'s part. */
        public Range part(int i) {
            return parts.get(i);
        }
    }

    /**
     * Part of a grid partition: the cells with {@code lo[a] ≤ x[a] < hi[a]} on every axis, and the
     * sum of their weights. The arrays are copies; equality is by value.
     */
    public record Box(int[] lo, int[] hi, long load) {
        public Box {
            lo = lo.clone();
            hi = hi.clone();
            if (lo.length != hi.length) throw new IllegalArgumentException("corners of different dimensions");
        }

        @Override
        public int[] lo() {
            return lo.clone();
        }

        @Override
        public int[] hi() {
            return hi.clone();
        }

        public int dims() {
            return lo.length;
        }

        public int lo(int axis) {
            return lo[axis];
        }

        /** Exclusive. */
        public int hi(int axis) {
            return hi[axis];
        }

        /** How many cells the box holds (0 for an empty box). */
        public long cells() {
            long n = 1;
            for (int a = 0; a < lo.length; a++) n *= Math.max(0, hi[a] - lo[a]);
            return n;
        }

        public boolean contains(int... x) {
            for (int a = 0; a < lo.length; a++) if (x[a] < lo[a] || x[a] >= hi[a]) return false;
            return true;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Box b && b.load == load && Arrays.equals(b.lo, lo) && Arrays.equals(b.hi, hi);
        }

        @Override
        public int hashCode() {
            return Objects.hash(Arrays.hashCode(lo), Arrays.hashCode(hi), load);
        }

        /** {@code [0,500)x[0,250) load 1234}. */
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder();
            for (int a = 0; a < lo.length; a++) sb.append(a == 0 ? "" : "x").append('[').append(lo[a]).append(',').append(hi[a]).append(')');
            return sb.append(" load ").append(load).toString();
        }
    }

    /** A grid partition: boxes that cover every cell once; part {@code i} ↔ task {@code i}. */
    public record Boxes(List<Box> parts) {
        public Boxes {
            parts = List.copyOf(parts);
        }

        public long max() {
            long m = 0;
            for (Box b : parts) m = Math.max(m, b.load());
            return m;
        }

        public long total() {
            long t = 0;
            for (Box b : parts) t += b.load();
            return t;
        }

        public int count() {
            return parts.size();
        }

        /** Task {@code i}'s part. */
        public Box part(int i) {
            return parts.get(i);
        }
    }

    /** Which axis ORB cuts. */
    public enum Axis {
        /** The longest axis of the box being cut (ties: the lower axis); keeps boxes compact. */
        LONGEST,
        /** Axis {@code depth mod d}: 0, 1, 2, 0, … down the recursion (an axis one cell thick is skipped while another can be cut). */
        ALTERNATE
    }

    /**
     * How ORB sections: the axis rule and how many strips each level cuts ({@code 2}: ORB proper;
     * {@code k > 2}: ORB-H, multi-section). Each level splits {@code P} parts into {@code min(k, P)}
     * groups of {@code ⌊P/k⌋} or {@code ⌈P/k⌉} parts, larger groups last.
     */
    public record Orb(Axis axis, int strips) {
        /** Bisection along the longest axis. */
        public static final Orb DEFAULT = new Orb(Axis.LONGEST, 2);

        public Orb {
            Objects.requireNonNull(axis, "axis");
            if (strips < 2) throw new IllegalArgumentException("ORB needs at least 2 strips per level, got " + strips);
        }

        /** ORB-H: {@code k} strips per level along the longest axis. */
        public static Orb hierarchical(int k) {
            return new Orb(Axis.LONGEST, k);
        }

        public Orb with(Axis axis) {
            return new Orb(axis, strips);
        }
    }

    /**
     * The contiguous partition of {@code weights} into {@code parts} ranges whose heaviest range is
     * as light as possible (exact: probe and bisection over prefix sums,
     * {@code O(N + P·log N·log max w)}). Among optimal partitions, each cut sits near its
     * proportional share of the total, so light parts are spread out rather than left at the end.
     *
     * @throws IllegalArgumentException when {@code parts < 1} or a weight is negative (naming its index)
     */
    public static Ranges exact(long[] weights, int parts) {
        checkParts(parts);
        long[] pre = Prefix.of(weights);
        long max = 0;
        for (long w : weights) max = Math.max(max, w);
        int[] cuts = Linear.exact(pre, max, parts);
        List<Range> out = new ArrayList<>(parts);
        for (int j = 0; j < parts; j++) out.add(new Range(cuts[j], cuts[j + 1], pre[cuts[j + 1]] - pre[cuts[j]]));
        return new Ranges(out);
    }

    /**
     * Orthogonal recursive bisection of a line, for comparison with {@link #exact}: {@code P}
     * parts are cut {@code ⌊P/2⌋ : ⌈P/2⌉} where the load on the left is closest to
     * {@code ⌊P/2⌋/P} of the total, then each side likewise. Ties between a cut below and one
     * above the share: the side with more parts per part stays lighter; for an even split, the
     * cut further right. Never better than {@link #exact}; often equal.
     */
    public static Ranges orb(long[] weights, int parts) {
        return orb(weights, parts, Orb.DEFAULT);
    }

    /** ORB (or ORB-H with {@code how.strips() > 2}) of a line; the axis rule is moot in 1-D. */
    public static Ranges orb(long[] weights, int parts, Orb how) {
        checkParts(parts);
        Sectioning.Result r = Sectioning.orb(Prefix.of(weights), parts, how.strips());
        List<Range> out = new ArrayList<>(parts);
        for (int i = 0; i < parts; i++) out.add(new Range(r.lo()[i], r.hi()[i], r.loads()[i]));
        return new Ranges(out);
    }

    /** ORB of a 2-D grid {@code weights[row][column]} (rows must be equally long) into {@code parts} boxes, longest axis first. */
    public static Boxes orb(long[][] weights, int parts) {
        return orb(weights, parts, Orb.DEFAULT);
    }

    /** ORB or ORB-H of a 2-D grid {@code weights[x0][x1]}. Box axis 0 is the first index. */
    public static Boxes orb(long[][] weights, int parts, Orb how) {
        int n0 = weights.length, n1 = n0 == 0 ? 0 : weights[0].length;
        long[] flat = new long[Math.multiplyExact(n0, n1)];
        for (int i = 0; i < n0; i++) {
            if (weights[i].length != n1) throw ragged("row [" + i + "]", weights[i].length, n1);
            System.arraycopy(weights[i], 0, flat, i * n1, n1);
        }
        return orb(flat, new int[]{n0, n1}, parts, how);
    }

    /** ORB of a 3-D grid {@code weights[x0][x1][x2]} into {@code parts} boxes, longest axis first. */
    public static Boxes orb(long[][][] weights, int parts) {
        return orb(weights, parts, Orb.DEFAULT);
    }

    /** ORB or ORB-H of a 3-D grid {@code weights[x0][x1][x2]}. */
    public static Boxes orb(long[][][] weights, int parts, Orb how) {
        int n0 = weights.length;
        int n1 = n0 == 0 ? 0 : weights[0].length;
        int n2 = n1 == 0 ? 0 : weights[0][0].length;
        long[] flat = new long[Math.multiplyExact(Math.multiplyExact(n0, n1), n2)];
        for (int i = 0; i < n0; i++) {
            if (weights[i].length != n1) throw ragged("plane [" + i + "]", weights[i].length, n1);
            for (int j = 0; j < n1; j++) {
                if (weights[i][j].length != n2) throw ragged("row [" + i + "][" + j + "]", weights[i][j].length, n2);
                System.arraycopy(weights[i][j], 0, flat, (i * n1 + j) * n2, n2);
            }
        }
        return orb(flat, new int[]{n0, n1, n2}, parts, how);
    }

    /**
     * ORB or ORB-H of a grid of any dimension given flat in row-major order (the last axis varies
     * fastest): cell {@code (x0, …, x(d-1))} is {@code cells[(x0·n1 + x1)·n2 + …]}.
     *
     * @throws IllegalArgumentException when {@code shape} does not match the cells, {@code parts < 1},
     *                                  or a weight is negative (naming its cell)
     */
    public static Boxes orb(long[] cells, int[] shape, int parts, Orb how) {
        checkParts(parts);
        Objects.requireNonNull(how, "how");
        Sectioning.Result r = Sectioning.orb(cells, shape, parts, how.strips(), how.axis() == Axis.ALTERNATE);
        int d = r.dims();
        List<Box> out = new ArrayList<>(parts);
        for (int i = 0; i < parts; i++) {
            out.add(new Box(Arrays.copyOfRange(r.lo(), i * d, i * d + d), Arrays.copyOfRange(r.hi(), i * d, i * d + d), r.loads()[i]));
        }
        return new Boxes(out);
    }

    private static void checkParts(int parts) {
        if (parts < 1) throw new IllegalArgumentException("cannot partition into " + parts + " parts: need at least 1");
    }

    private static IllegalArgumentException ragged(String what, int length, int expected) {
        return new IllegalArgumentException("the grid is ragged: " + what + " has " + length + " cells, the first has " + expected);
    }
}
