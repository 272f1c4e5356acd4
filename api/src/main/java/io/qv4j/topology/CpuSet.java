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

    /** hwloc's first word for a bitmap whose bits are all set from some index on. */
    private static final String INFINITE = "0xf...f";

    private static final CpuSet EMPTY = new CpuSet(new BitSet());

    private final BitSet bits; // never exposed, never mutated after construction
    private String text; // toString, made once (a race makes it twice, the same): reports print the same sets again and again

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
     * Parses a Linux cpulist as the kernel prints it: comma-separated indexes and ranges
     * ({@code 0-3,8,10-11}). Also read: the kernel's group form {@code N-M:USED/GROUP} (of each
     * GROUP PUs from N on, the first USED, as {@code cpuset.cpus} accepts it), a plain stride
     * {@code N-M:STRIDE}, and blanks around entries and around the whole text (control characters
     * such as a trailing NUL included); "" is the empty set. Empty entries ({@code 0-3,,5}) and
     * blank-separated entries ({@code 1 2}) are refused: the kernel never prints them and in an
     * option they are typos.
     *
     * @throws IllegalArgumentException naming the text and the bad part
     */
    public static CpuSet parse(String cpulist) {
        String s = trim(cpulist);
        if (s.isEmpty()) return EMPTY;
        BitSet b = new BitSet();
        for (String part : s.split(",", -1)) {
            String p = trim(part);
            try {
                int used = 1, group = 1;
                int colon = p.indexOf(':');
                if (colon >= 0) {
                    String pattern = p.substring(colon + 1);
                    int slash = pattern.indexOf('/');
                    if (slash < 0) {
                        group = number(pattern);
                    } else {
                        used = number(pattern.substring(0, slash));
                        group = number(pattern.substring(slash + 1));
                    }
                    p = p.substring(0, colon);
                    if (used < 0 || group <= 0 || used > group) throw new NumberFormatException();
                }
                int dash = p.indexOf('-');
                int from = number(dash < 0 ? p : p.substring(0, dash));
                int to = dash < 0 ? from : number(p.substring(dash + 1));
                if (to < from || to > MAX_INDEX) throw new NumberFormatException();
                for (int g = from; g <= to; g += group) { // no overflow: to <= MAX_INDEX
                    b.set(g, Math.min(g + used, to + 1));
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad cpulist '" + shown(s) + "': '" + shown(p)
                        + "' is not N, N-M, N-M:STRIDE or N-M:USED/GROUP with 0 <= N <= M <= " + MAX_INDEX);
            }
        }
        return new CpuSet(b);
    }

    /** A decimal number of digits only (no sign, no blanks: Integer.parseInt would take "+3"). */
    private static int number(String s) {
        if (s.isEmpty() || s.length() > 9) throw new NumberFormatException();
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') throw new NumberFormatException();
            n = n * 10 + (c - '0');
        }
        return n;
    }

    /**
     * Parses a hex bitmap as the kernel prints it ({@code cpumap}, {@code shared_cpu_map}:
     * {@code 00000000,0000ff00}) and as hwloc writes and reads it ({@code 0x000000ff,,,0x00000003}).
     * Comma-separated 32-bit words, most significant first; each word has an optional {@code 0x},
     * any number of leading zeros, and blanks around it; an empty word is 0 (hwloc writes the
     * zero words between non-zero ones that way). A text of one word may be a wider hex number
     * ({@code 0x100000000} is PU 32); in a list of words, a word above 32 bits is refused.
     * hwloc's infinite bitmaps ({@code 0xf...f}, {@code 0xf...f,0x0000000f}) are refused with a
     * message saying so: a CpuSet is finite; see {@link #parseMask(String, CpuSet)}.
     *
     * @throws IllegalArgumentException naming the text and the bad word
     */
    public static CpuSet parseMask(String mask) {
        return parseMask(mask, null);
    }

    /**
     * {@link #parseMask(String)}, where an infinite hwloc bitmap ({@code 0xf...f} followed by N
     * words) stands for its N finite words plus every PU of {@code infinite} from 32*N on: the
     * machine's PUs, for an attribute such as hwloc's {@code allowed_cpuset="0xf...f"}.
     *
     * @param infinite what the infinite part covers; null refuses infinite bitmaps
     */
    public static CpuSet parseMask(String mask, CpuSet infinite) {
        String s = trim(mask);
        if (s.isEmpty()) return EMPTY;
        String[] words = s.split(",", -1);
        int first = 0;
        if (trim(words[0]).equals(INFINITE)) {
            if (infinite == null) {
                throw new IllegalArgumentException("bad cpu mask '" + shown(s) + "': an infinite hwloc bitmap ("
                        + INFINITE + "...) is not a finite set of PUs");
            }
            first = 1;
        }
        BitSet b = new BitSet();
        long bit = 0; // long: a text of millions of empty words must not wrap around
        for (int w = words.length - 1; w >= first; w--, bit += 32) {
            String word = trim(words[w]);
            if (word.startsWith("0x") || word.startsWith("0X")) {
                word = word.substring(2);
                if (word.isEmpty()) throw new IllegalArgumentException("bad cpu mask '" + shown(s) + "': '0x' without digits");
            }
            int top = word.length() - 1;
            int lead = 0;
            while (lead < top && word.charAt(lead) == '0') lead++; // leading zeros never widen a word
            if (top - lead >= 8 && words.length - first > 1) {
                throw new IllegalArgumentException("bad cpu mask '" + shown(s) + "': word '" + trim(words[w]) + "' is wider than 32 bits");
            }
            long at = bit;
            for (int i = top; i >= lead; i--, at += 4) {
                int nibble = hexDigit(word.charAt(i));
                if (nibble < 0) throw new IllegalArgumentException("bad cpu mask '" + shown(s) + "': '" + trim(words[w]) + "' is not hex");
                if (nibble == 0) continue;
                if (at + 31 - Integer.numberOfLeadingZeros(nibble) > MAX_INDEX) {
                    throw new IllegalArgumentException("bad cpu mask '" + shown(s) + "': PU index above " + MAX_INDEX);
                }
                for (int k = 0; k < 4; k++) if ((nibble & (1 << k)) != 0) b.set((int) at + k);
            }
        }
        if (first == 1 && bit <= MAX_INDEX) {
            BitSet tail = (BitSet) infinite.bits.clone();
            tail.clear(0, (int) bit);
            b.or(tail);
        }
        return new CpuSet(b);
    }
    /** An ASCII hex digit's value, else -1 (Character.digit also takes other scripts' digits). */
    private static int hexDigit(char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    /** A text for a message: long ones cut, so that a huge bad input does not make a huge message. */
    private static String shown(String s) {
        return s.length() <= 120 ? s : s.substring(0, 120) + "... (" + s.length() + " characters)";
    }

    /** Without the blanks and control characters around it (Java's strip misses a NUL). */
    private static String trim(String s) {
        int from = 0, to = s.length();
        while (from < to && blank(s.charAt(from))) from++;
        while (to > from && blank(s.charAt(to - 1))) to--;
        return s.substring(from, to);
    }

    private static boolean blank(char c) {
        return c <= ' ' || Character.isWhitespace(c);
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
        String t = text;
        if (t == null) text = t = format();
        return t;
    }

    private String format() {
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
