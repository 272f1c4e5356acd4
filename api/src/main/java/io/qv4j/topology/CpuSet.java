package io.qv4j.topology;

import java.util.BitSet;
import java.util.stream.IntStream;

/**
 * An immutable set of PU OS indexes, printed and parsed as a Linux cpulist ({@code 0-3,8,10-11}).
 * The set grows with its highest index (machines with 8192 PUs are tested), up to
 * {@link #MAX_INDEX}: a typo such as {@code 0-2147483647} must fail, not allocate 256 MiB.
 */
public final class CpuSet implements Comparable<CpuSet> {

    /** The highest PU index accepted (2^20 PUs, far beyond Linux's NR_CPUS limit of 8192). */
    public static final int MAX_INDEX = (1 << 20) - 1;

    private static final CpuSet EMPTY = new CpuSet(new BitSet());

    private final BitSet bits; // never exposed, never mutated after construction

    private CpuSet(BitSet bits) {
        this.bits = bits;
    }

    public static CpuSet empty() {
        return EMPTY;
    }

    public static CpuSet of(int... pus) {
        BitSet b = new BitSet();
        for (int pu : pus) {
            checkIndex(pu);
            b.set(pu);
        }
        return new CpuSet(b);
    }

    /** The PUs {@code from..to}, both inclusive. */
    public static CpuSet range(int from, int to) {
        checkIndex(from);
        checkIndex(to);
        if (to < from) throw new IllegalArgumentException("empty range " + from + "-" + to);
        BitSet b = new BitSet(to + 1);
        b.set(from, to + 1);
        return new CpuSet(b);
    }

    public static CpuSet of(BitSet bits) {
        return new CpuSet((BitSet) bits.clone());
    }

    /**
     * Parses a Linux cpulist: comma-separated indexes and ranges, optionally with a stride
     * ({@code 0-15:4}); blanks and a trailing newline are ignored; "" is the empty set.
     *
     * @throws IllegalArgumentException naming the text and the bad part
     */
    public static CpuSet parse(String cpulist) {
        String s = cpulist.strip();
        BitSet b = new BitSet();
        if (s.isEmpty()) return EMPTY;
        for (String part : s.split(",")) {
            String p = part.strip();
            try {
                int stride = 1;
                int colon = p.indexOf(':');
                if (colon >= 0) {
                    stride = Integer.parseInt(p.substring(colon + 1));
                    p = p.substring(0, colon);
                    if (stride <= 0) throw new NumberFormatException();
                }
                int dash = p.indexOf('-');
                int from = Integer.parseInt(dash < 0 ? p : p.substring(0, dash));
                int to = dash < 0 ? from : Integer.parseInt(p.substring(dash + 1));
                if (from < 0 || to < from || to > MAX_INDEX) throw new NumberFormatException();
                for (int i = from; i <= to; i += stride) b.set(i); // no overflow: to <= MAX_INDEX
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad cpulist '" + cpulist.strip() + "': '" + part.strip()
                        + "' is not N, N-M or N-M:STRIDE with 0 <= N <= M <= " + MAX_INDEX);
            }
        }
        return new CpuSet(b);
    }

    /**
     * Parses a Linux hex mask as in sysfs {@code cpumap}/{@code shared_cpu_map}: 32-bit words,
     * most significant first, separated by commas ({@code 00000000,0000ff00}); an optional
     * {@code 0x} prefix. hwloc XML writes the same form ({@code 0x000000ff,0x00000003}).
     */
    public static CpuSet parseMask(String mask) {
        String s = mask.strip();
        if (s.isEmpty()) return EMPTY;
        String[] words = s.split(",", -1); // -1: keep empty words, so "ff," is an error
        BitSet b = new BitSet();
        int bit = 0;
        for (int w = words.length - 1; w >= 0; w--) {
            String word = words[w].strip();
            if (word.startsWith("0x") || word.startsWith("0X")) word = word.substring(2);
            if (word.isEmpty()) throw new IllegalArgumentException("bad cpu mask '" + s + "'");
            // a word may be wider than 32 bits in hand-written input: read it nibble by nibble
            int wordBits = 0;
            for (int i = word.length() - 1; i >= 0; i--, wordBits += 4) {
                int nibble = Character.digit(word.charAt(i), 16);
                if (nibble < 0) throw new IllegalArgumentException("bad cpu mask '" + s + "': '" + word + "' is not hex");
                for (int k = 0; k < 4; k++) {
                    if ((nibble & (1 << k)) == 0) continue;
                    if (bit + wordBits + k > MAX_INDEX) throw new IllegalArgumentException("bad cpu mask '" + s + "': PU index above " + MAX_INDEX);
                    b.set(bit + wordBits + k);
                }
            }
            bit += Math.max(32, wordBits);
        }
        return new CpuSet(b);
    }

    private static void checkIndex(int pu) {
        if (pu < 0) throw new IllegalArgumentException("negative PU index " + pu);
        if (pu > MAX_INDEX) throw new IllegalArgumentException("PU index " + pu + " above " + MAX_INDEX);
    }

    public boolean isEmpty() {
        return bits.isEmpty();
    }

    public int cardinality() {
        return bits.cardinality();
    }

    public boolean contains(int pu) {
        return pu >= 0 && bits.get(pu);
    }

    /** True when every PU of {@code other} is in this set. */
    public boolean containsAll(CpuSet other) {
        BitSet rest = (BitSet) other.bits.clone();
        rest.andNot(bits);
        return rest.isEmpty();
    }

    public boolean intersects(CpuSet other) {
        return bits.intersects(other.bits);
    }

    public CpuSet and(CpuSet other) {
        BitSet b = (BitSet) bits.clone();
        b.and(other.bits);
        return new CpuSet(b);
    }

    public CpuSet or(CpuSet other) {
        BitSet b = (BitSet) bits.clone();
        b.or(other.bits);
        return new CpuSet(b);
    }

    public CpuSet andNot(CpuSet other) {
        BitSet b = (BitSet) bits.clone();
        b.andNot(other.bits);
        return new CpuSet(b);
    }

    /** The lowest PU, or -1 when empty. */
    public int first() {
        return bits.nextSetBit(0);
    }

    /** The highest PU, or -1 when empty. */
    public int last() {
        return bits.length() - 1;
    }

    /** The next PU at or after {@code from}, or -1. */
    public int next(int from) {
        return bits.nextSetBit(from);
    }

    public IntStream stream() {
        return bits.stream();
    }

    public int[] toArray() {
        int[] out = new int[bits.cardinality()];
        for (int i = 0, pu = bits.nextSetBit(0); pu >= 0; pu = bits.nextSetBit(pu + 1)) out[i++] = pu;
        return out;
    }

    /** A copy as a {@link BitSet} (for binding APIs that take one). */
    public BitSet toBitSet() {
        return (BitSet) bits.clone();
    }

    /** The Linux cpulist form: {@code 0-3,8,10-11}; "" when empty. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        int i = bits.nextSetBit(0);
        while (i >= 0) {
            int end = bits.nextClearBit(i) - 1;
            if (sb.length() > 0) sb.append(',');
            sb.append(i);
            if (end > i) sb.append('-').append(end);
            i = bits.nextSetBit(end + 1);
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CpuSet && ((CpuSet) o).bits.equals(bits);
    }

    @Override
    public int hashCode() {
        return bits.hashCode();
    }

    /** Orders by lowest PU, then by the rest of the PUs (the order topology lists use). */
    @Override
    public int compareTo(CpuSet o) {
        int a = bits.nextSetBit(0), b = o.bits.nextSetBit(0);
        while (a >= 0 && b >= 0) {
            if (a != b) return Integer.compare(a, b);
            a = bits.nextSetBit(a + 1);
            b = o.bits.nextSetBit(b + 1);
        }
        return Integer.compare(a < 0 ? 0 : 1, b < 0 ? 0 : 1);
    }
}
