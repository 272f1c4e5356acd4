package io.qv4j.partition;

/**
 * Orthogonal recursive sectioning of a d-dimensional grid of weights: ORB (Berger and Bokhari,
 * 1987) and its multi-section variant ORB-H.
 *
 * <p>A box holding {@code P > 1} parts is cut along one axis into {@code k' = min(k, P)} slabs
 * holding {@code ⌊P/k'⌋} or {@code ⌈P/k'⌉} parts each, the bigger groups last (so a bisection is
 * {@code ⌊P/2⌋ : ⌈P/2⌉}, 1 : 2 for three parts). The weights of the box are summed per slice
 * across the axis and each cut goes where the load before it is closest to its proportional share
 * ({@link CutRule}); then each slab is sectioned the same way. Any {@code P} works; a box with
 * fewer cells than parts yields empty boxes. The axis is the longest of the box (ties: the lowest
 * axis) or, alternating, axis {@code depth mod d} (skipping axes of one cell while another can be
 * cut). Parts are numbered depth first, lower slabs first. Cost: {@code O(cells · levels)}. Pure.
 */
public final class Sectioning {

    /**
     * @param lo    part {@code i}'s lower corner is {@code lo[i·d .. i·d+d)}
     * @param hi    its upper corner, exclusive
     * @param loads the sum of its weights
     */
    public record Result(int dims, int[] lo, int[] hi, long[] loads) {
    }

    private final long[] cells;
    private final int[] shape;
    private final int[] stride;
    private final int dims;
    private final int strips;
    private final boolean alternate;
    private final long[] linearPrefix; // 1-D only: the prefix sums of the whole line
    private final int[] outLo, outHi;
    private final long[] outLoads;

    private Sectioning(long[] cells, long[] linearPrefix, int[] shape, int parts, int strips, boolean alternate) {
        this.cells = cells;
        this.linearPrefix = linearPrefix;
        this.shape = shape;
        this.dims = shape.length;
        this.stride = new int[dims];
        int s = 1;
        for (int a = dims - 1; a >= 0; a--) {
            stride[a] = s;
            s *= shape[a];
        }
        this.strips = strips;
        this.alternate = alternate;
        this.outLo = new int[parts * dims];
        this.outHi = new int[parts * dims];
        this.outLoads = new long[parts];
    }

    /**
     * ORB / ORB-H of a row-major grid (the last axis varies fastest).
     *
     * @param strips    slabs per level: 2 for ORB, {@code k > 2} for ORB-H
     * @param alternate cut along axis {@code depth mod d} instead of the longest axis
     * @throws IllegalArgumentException for a shape that does not match the cells, {@code parts < 1},
     *                                  {@code strips < 2}, or a negative weight (naming its cell)
     */
    public static Result orb(long[] cells, int[] shape, int parts, int strips, boolean alternate) {
        check(cells.length, shape, parts, strips);
        long[] pre = null;
        long total;
        if (shape.length == 1) {
            pre = Prefix.of(cells);
            total = pre[cells.length];
        } else {
            total = Prefix.total(cells, i -> cellName(i, shape));
        }
        Sectioning s = new Sectioning(cells, pre, shape, parts, strips, alternate);
        s.section(new int[shape.length], shape.clone(), 0, parts, 0, total);
        return new Result(shape.length, s.outLo, s.outHi, s.outLoads);
    }

    /** ORB / ORB-H of a line whose prefix sums are known (from {@link Prefix#of}). */
    public static Result orb(long[] linePrefix, int parts, int strips) {
        int n = linePrefix.length - 1;
        check(n, new int[]{n}, parts, strips);
        Sectioning s = new Sectioning(null, linePrefix, new int[]{n}, parts, strips, false);
        s.section(new int[]{0}, new int[]{n}, 0, parts, 0, linePrefix[n]);
        return new Result(1, s.outLo, s.outHi, s.outLoads);
    }

    private static void check(int cells, int[] shape, int parts, int strips) {
        if (parts < 1) throw new IllegalArgumentException("cannot partition into " + parts + " parts: need at least 1");
        if (strips < 2) throw new IllegalArgumentException("cannot section into " + strips + " strips per level: need at least 2");
        if (shape.length < 1) throw new IllegalArgumentException("a grid needs at least one axis");
        long n = 1;
        for (int a = 0; a < shape.length; a++) {
            if (shape[a] < 0) throw new IllegalArgumentException("axis " + a + " has negative length " + shape[a]);
            n *= shape[a];
            if (n > Integer.MAX_VALUE) throw new IllegalArgumentException("grid " + java.util.Arrays.toString(shape) + " has too many cells");
        }
        if (n != cells) {
            throw new IllegalArgumentException("grid " + java.util.Arrays.toString(shape) + " has " + n + " cells but " + cells + " weights were given");
        }
    }

    /** {@code [i][j][k]} for flat index {@code i} of a row-major grid. */
    public static String cellName(int flat, int[] shape) {
        StringBuilder sb = new StringBuilder();
        int[] idx = new int[shape.length];
        for (int a = shape.length - 1; a >= 0; a--) {
            idx[a] = flat % shape[a];
            flat /= shape[a];
        }
        for (int i : idx) sb.append('[').append(i).append(']');
        return sb.toString();
    }

    private void section(int[] lo, int[] hi, int firstPart, int parts, int depth, long load) {
        if (parts == 1) {
            System.arraycopy(lo, 0, outLo, firstPart * dims, dims);
            System.arraycopy(hi, 0, outHi, firstPart * dims, dims);
            outLoads[firstPart] = load;
            return;
        }
        int axis = axis(lo, hi, depth);
        long[] pre;
        int start, end;
        if (dims == 1) {
            pre = linearPrefix;
            start = lo[0];
            end = hi[0];
        } else {
            pre = project(lo, hi, axis);
            start = 0;
            end = hi[axis] - lo[axis];
        }
        int k = Math.min(strips, parts);
        int small = parts / k, bigFrom = k - parts % k; // groups bigFrom..k-1 get one part more
        int a = start, upTo = 0;
        for (int j = 0; j < k; j++) {
            int group = small + (j >= bigFrom ? 1 : 0);
            upTo += group;
            int c = j == k - 1 ? end : CutRule.choose(pre, start, end, a, end, a, upTo, group, parts);
            int[] subLo = lo.clone(), subHi = hi.clone();
            subLo[axis] = lo[axis] + (a - start);
            subHi[axis] = lo[axis] + (c - start);
            section(subLo, subHi, firstPart + upTo - group, group, depth + 1, pre[c] - pre[a]);
            a = c;
        }
    }

    private int axis(int[] lo, int[] hi, int depth) {
        if (!alternate) {
            int best = 0;
            for (int a = 1; a < dims; a++) if (hi[a] - lo[a] > hi[best] - lo[best]) best = a;
            return best;
        }
        for (int j = 0; j < dims; j++) {
            int a = (depth + j) % dims;
            if (hi[a] - lo[a] >= 2) return a;
        }
        return depth % dims;
    }

    /** Prefix sums of the box's load per slice across {@code axis}: length {@code hi[axis]-lo[axis]+1}. */
    private long[] project(int[] lo, int[] hi, int axis) {
        int extent = hi[axis] - lo[axis];
        long[] pre = new long[extent + 1];
        for (int a = 0; a < dims; a++) if (hi[a] <= lo[a]) return pre; // an empty box
        int last = dims - 1;
        int[] idx = lo.clone();
        while (true) {
            int base = 0;
            for (int a = 0; a < last; a++) base += idx[a] * stride[a];
            if (axis == last) {
                for (int x = lo[last]; x < hi[last]; x++) pre[x - lo[last] + 1] += cells[base + x];
            } else {
                long sum = 0;
                for (int x = base + lo[last], e = base + hi[last]; x < e; x++) sum += cells[x];
                pre[idx[axis] - lo[axis] + 1] += sum;
            }
            int a = last - 1;
            while (a >= 0 && ++idx[a] == hi[a]) {
                idx[a] = lo[a];
                a--;
            }
            if (a < 0) break;
        }
        for (int i = 1; i <= extent; i++) pre[i] += pre[i - 1];
        return pre;
    }
}
