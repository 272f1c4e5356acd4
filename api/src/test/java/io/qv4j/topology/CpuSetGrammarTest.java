package io.qv4j.topology;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random sets written in hwloc's bitmap grammar and the kernel's list grammar, with every variation
 * the grammars allow, read back by {@link CpuSet} and by a small reference decoder written here
 * from the grammars alone. Fixed seeds: a failure names its seed and text and repeats.
 */
class CpuSetGrammarTest {

    private static final int CASES = 200;
    private static final String[] BLANKS = {"", "", "", " ", "\t", "  ", " \t "};

    @Test
    void randomHwlocAndKernelBitmapsDecodeToTheSetTheyWereWrittenFrom() {
        for (int seed = 0; seed < CASES; seed++) {
            Random r = new Random(seed);
            BitSet set = randomSet(r);
            String text = bitmap(set, r);
            String where = "seed " + seed + ": '" + text.replace("\n", "\\n") + "'";
            assertEquals(set, referenceBitmap(text), "reference decoder, " + where);
            assertEquals(CpuSet.of(set), CpuSet.parseMask(text), where);
        }
    }

    @Test
    void randomKernelCpulistsDecodeToTheSetTheyWereWrittenFrom() {
        for (int seed = 0; seed < CASES; seed++) {
            Random r = new Random(seed);
            BitSet set = randomSet(r);
            String text = cpulist(set, r);
            String where = "seed " + seed + ": '" + text.replace("\n", "\\n") + "'";
            assertEquals(set, referenceList(text), "reference decoder, " + where);
            assertEquals(CpuSet.of(set), CpuSet.parse(text), where);
        }
    }

    @Test
    void hwlocInfiniteBitmapsAreRefusedAloneAndCoverTheGivenPusAboveTheirFiniteWords() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CpuSet.parseMask("0xf...f,0x3"));
        assertTrue(e.getMessage().contains("infinite"), e.getMessage());
        CpuSet machine = CpuSet.range(0, 95);
        assertEquals(machine, CpuSet.parseMask("0xf...f", machine));
        assertEquals(CpuSet.parse("0-1,32-95"), CpuSet.parseMask("0xf...f,0x00000003", machine));
        assertEquals(CpuSet.parse("0,64-95"), CpuSet.parseMask("0xf...f,,0x1", machine));
        assertEquals(CpuSet.parse("4"), CpuSet.parseMask("0x10", machine), "a finite bitmap ignores the machine");
    }

    @Test
    void bitsAboveTheBoundAreRefusedWithoutAllocatingForThem() {
        String high = "0x1" + ",".repeat((CpuSet.MAX_INDEX + 1) / 32);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CpuSet.parseMask(high));
        assertTrue(e.getMessage().contains("above " + CpuSet.MAX_INDEX), e.getMessage());
        assertTrue(e.getMessage().length() < 400, "a long text is cut in the message");
        assertEquals(CpuSet.empty(), CpuSet.parseMask("0x0" + ",".repeat(1 << 16)), "zero words cost nothing");
        assertThrows(IllegalArgumentException.class, () -> CpuSet.parse("0-" + (CpuSet.MAX_INDEX + 1)));
    }

    /** Empty, sparse, dense, runs; up to 10000 bits (past Linux's 8192). */
    private static BitSet randomSet(Random r) {
        BitSet b = new BitSet();
        int size = switch (r.nextInt(8)) {
            case 0, 1, 2 -> r.nextInt(64);
            case 3, 4, 5 -> r.nextInt(300);
            default -> 8192 + r.nextInt(1808);
        };
        if (size == 0 || r.nextInt(20) == 0) return b;
        double density = r.nextInt(3) == 0 ? 0.9 : r.nextDouble() * 0.2;
        for (int i = 0; i < size; i++) {
            if (r.nextInt(50) == 0) { // a run, as caches and packages give
                int len = 1 + r.nextInt(64);
                b.set(i, Math.min(size, i + len));
                i += len;
            } else if (r.nextDouble() < density) {
                b.set(i);
            }
        }
        return b;
    }

    /**
     * hwloc's and the kernel's hex form: 32-bit words, most significant first. A zero word is empty,
     * "0", "0x0" or zero-padded; words have leading zeros or not, 0x or not, blanks around;
     * the text may start with zero words and end with a newline and more blanks.
     */
    private static String bitmap(BitSet set, Random r) {
        int words = (set.length() + 31) / 32 + r.nextInt(3);
        if (words == 0) return r.nextBoolean() ? "" : "0x0";
        List<String> fields = new ArrayList<>();
        for (int w = words - 1; w >= 0; w--) {
            long v = 0;
            for (int k = 0; k < 32; k++) if (set.get(w * 32 + k)) v |= 1L << k;
            String hex = Long.toHexString(v);
            if (v == 0 && r.nextInt(3) == 0) {
                fields.add(pick(BLANKS, r));
                continue;
            }
            String digits = switch (r.nextInt(3)) {
                case 0 -> hex;
                case 1 -> "0".repeat(8 - hex.length()) + hex;
                default -> "0".repeat(r.nextInt(12)) + hex;
            };
            if (r.nextBoolean()) digits = digits.toUpperCase();
            String prefix = switch (r.nextInt(3)) {
                case 0 -> "";
                case 1 -> "0x";
                default -> "0X";
            };
            fields.add(pick(BLANKS, r) + prefix + digits + pick(BLANKS, r));
        }
        return pick(BLANKS, r) + String.join(",", fields) + ending(r);
    }

    /** The kernel's list form: ranges and singles, in order or not, split or overlapping, blanks around entries. */
    private static String cpulist(BitSet set, Random r) {
        List<String> entries = new ArrayList<>();
        for (int i = set.nextSetBit(0); i >= 0; ) {
            int end = set.nextClearBit(i) - 1;
            int to = r.nextInt(4) == 0 ? i + r.nextInt(end - i + 1) : end; // split a run in two entries
            entries.add(i == to && r.nextBoolean() ? String.valueOf(i) : i + "-" + to);
            if (r.nextInt(10) == 0) entries.add(String.valueOf(i)); // overlaps are allowed
            i = to == end ? set.nextSetBit(end + 1) : to + 1;
        }
        if (r.nextInt(4) == 0) java.util.Collections.shuffle(entries, r);
        List<String> padded = new ArrayList<>();
        for (String e : entries) padded.add(pick(BLANKS, r) + e + pick(BLANKS, r));
        return pick(BLANKS, r) + String.join(",", padded) + ending(r);
    }

    private static String ending(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> "";
            case 1 -> "\n";
            case 2 -> "\n" + pick(BLANKS, r) + "\n";
            default -> " \n\t ";
        };
    }

    private static String pick(String[] options, Random r) {
        return options[r.nextInt(options.length)];
    }

    // ---- reference decoders: the grammars read the plainest way ----------------------------

    private static BitSet referenceBitmap(String text) {
        BitSet b = new BitSet();
        String[] fields = text.strip().split(",", -1);
        if (text.isBlank()) return b;
        for (int i = 0; i < fields.length; i++) {
            String f = fields[i].strip();
            if (f.startsWith("0x") || f.startsWith("0X")) f = f.substring(2);
            long v = f.isEmpty() ? 0 : Long.parseLong(f, 16);
            assertTrue(v >>> 32 == 0, "a word of 32 bits: " + fields[i]);
            int base = (fields.length - 1 - i) * 32;
            for (int k = 0; k < 32; k++) if ((v >>> k & 1) != 0) b.set(base + k);
        }
        return b;
    }

    private static BitSet referenceList(String text) {
        BitSet b = new BitSet();
        if (text.isBlank()) return b;
        for (String e : text.strip().split(",")) {
            String[] ends = e.strip().split("-");
            int from = Integer.parseInt(ends[0]);
            int to = ends.length == 1 ? from : Integer.parseInt(ends[1]);
            b.set(from, to + 1);
        }
        return b;
    }
}
