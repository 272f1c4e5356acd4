package io.qv4j.topology;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpuSetTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "0-3,8,10-11   | 0-3,8,10-11",
            "' 0-3, 8 ,10-11\n' | 0-3,8,10-11",
            "3,2,1,0       | 0-3",
            "0-1,1-2       | 0-2",
            "5             | 5",
            "0-15:4        | 0,4,8,12",
            "1-9:2,10      | 1,3,5,7,9-10",
            "4-4           | 4",
            "''            | ''",
            "' \n'         | ''",
            "'0-3\n \t\n'   | 0-3",
            "'0-3\n\u0000'  | 0-3",
            "0-9:2/4       | 0-1,4-5,8-9",
            "0-9:0/4       | ''",
            "0-7:4/4       | 0-7",
    })
    void parsesAndPrintsCpulists(String in, String printed) {
        CpuSet s = CpuSet.parse(in);
        assertEquals(printed, s.toString());
        assertEquals(s, CpuSet.parse(s.toString()), "round trip");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "1-", "-1", "3-1", "0-3,,5", "0-7:0", "0-7:x", "1 2", "0-7:5/4", "0-7:1/0", "0-7:/4", "+3", "0-3:1/2/3", "4294967296", "0-2147483647", "0-3;4"})
    void rejectsBadCpulists(String in) {
        IllegalArgumentException e = assertTimeoutPreemptively(Duration.ofSeconds(2),
                () -> assertThrows(IllegalArgumentException.class, () -> CpuSet.parse(in)));
        assertTrue(e.getMessage().contains(in.strip()), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "00000000,0000ff00            | 8-15",
            "'00000000,0000ff00\n'        | 8-15",
            "0x000000ff,0x00000003        | 0-1,32-39",
            "0x00000001,0x0               | 32",
            "0x03000003                   | 0-1,24-25",
            "ff                           | 0-7",
            "0x0                          | ''",
            "''                           | ''",
            "0X1,00000000,00000000        | 64",
            "0x0000000100000000           | 32",
            "0x000000ff,,,,0x000000ff     | 0-7,128-135",
            "ff,,ff                       | 0-7,64-71",
            "',0xff'                      | 0-7",
            "'0xff,'                      | 32-39",
            "','                          | ''",
            "' 0x1 ,\t0000000000000002 \n '| 1,32",
            "'000000000000000f,00000000'  | 32-35",
            "'0x1,0x0\n\u0000'             | 32",
    })
    void parsesMasks(String mask, String cpulist) {
        assertEquals(CpuSet.parse(cpulist), CpuSet.parseMask(mask));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0xzz", "0x", "0x-1", "0x1,0x", "1,100000000", "0xf...f", "0xf...f,0x1", "+1", "\u0663"})
    void rejectsBadMasks(String mask) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CpuSet.parseMask(mask));
        assertTrue(e.getMessage().contains(mask), e.getMessage());
    }

    @Test
    void mask8192Bits() {
        // 256 words of 32 bits, most significant first: PU 8191 (top bit of the first word) and PU 0.
        List<String> words = new ArrayList<>();
        for (int i = 0; i < 256; i++) words.add("00000000");
        words.set(0, "80000000");
        words.set(255, "00000001");
        CpuSet s = CpuSet.parseMask(String.join(",", words));
        assertEquals("0,8191", s.toString());
        assertEquals(CpuSet.range(0, 8191), CpuSet.parseMask("ffffffff,".repeat(255) + "ffffffff"));
    }

    @Test
    void setOperations() {
        CpuSet a = CpuSet.parse("0-7");
        CpuSet b = CpuSet.parse("4-11");
        assertEquals("4-7", a.and(b).toString());
        assertEquals("0-11", a.or(b).toString());
        assertEquals("0-3", a.andNot(b).toString());
        assertTrue(a.intersects(b));
        assertFalse(a.intersects(CpuSet.of(8, 9)));
        assertTrue(a.containsAll(CpuSet.of(1, 7)));
        assertFalse(a.containsAll(b));
        assertTrue(a.containsAll(CpuSet.empty()));
        assertTrue(a.contains(0));
        assertFalse(a.contains(8));
        assertFalse(a.contains(-1));
        assertEquals(8, a.cardinality());
        assertEquals(0, a.first());
        assertEquals(7, a.last());
        assertEquals(4, b.next(0));
        assertEquals(-1, a.next(8));
        assertEquals(-1, CpuSet.empty().first());
        assertEquals(-1, CpuSet.empty().last());
        assertTrue(CpuSet.empty().isEmpty());
        assertArrayEquals(new int[]{4, 5, 6, 7}, a.and(b).toArray());
        assertEquals(22, a.stream().sum() - 6);
    }

    @Test
    void immutable() {
        BitSet bits = new BitSet();
        bits.set(3);
        CpuSet s = CpuSet.of(bits);
        bits.set(4);
        s.toBitSet().set(5);
        assertEquals("3", s.toString());
        CpuSet a = CpuSet.of(1);
        a.or(CpuSet.of(2));
        assertEquals("1", a.toString());
    }

    @Test
    void equalityIgnoresHowTheSetWasMade() {
        assertEquals(CpuSet.range(0, 3), CpuSet.parse("0,1,2,3"));
        assertEquals(CpuSet.range(0, 3).hashCode(), CpuSet.parseMask("0000000f").hashCode());
        assertEquals(CpuSet.empty(), CpuSet.parse("0-3").andNot(CpuSet.parse("0-3")));
        assertNotEquals(CpuSet.of(1), CpuSet.of(2));
    }

    @Test
    void compareToOrdersByLowestPuThenTheRest() {
        List<CpuSet> sorted = new ArrayList<>(List.of(
                CpuSet.parse("8-15"), CpuSet.parse("0,5"), CpuSet.parse("0-2"), CpuSet.empty(),
                CpuSet.parse("0-1"), CpuSet.parse("1"), CpuSet.parse("0,8")));
        sorted.sort(null);
        assertEquals(List.of("", "0-1", "0-2", "0,5", "0,8", "1", "8-15"), sorted.stream().map(CpuSet::toString).toList());
        assertEquals(0, CpuSet.parse("2-3").compareTo(CpuSet.of(2, 3)));
        CpuSet x = CpuSet.parse("0,4"), y = CpuSet.parse("0-1");
        assertEquals(-Integer.signum(x.compareTo(y)), Integer.signum(y.compareTo(x)));
    }

    @Test
    void rangesAndIndexes() {
        assertEquals("2-5", CpuSet.range(2, 5).toString());
        assertThrows(IllegalArgumentException.class, () -> CpuSet.range(5, 2));
        assertThrows(IllegalArgumentException.class, () -> CpuSet.range(-1, 2));
        assertThrows(IllegalArgumentException.class, () -> CpuSet.range(0, Integer.MAX_VALUE));
        assertThrows(IllegalArgumentException.class, () -> CpuSet.of(-3));
    }

    @Test
    void bigSets() {
        CpuSet all = CpuSet.range(0, 8191);
        assertEquals(8192, all.cardinality());
        assertEquals("0-8191", all.toString());
        CpuSet even = CpuSet.parse("0-8191:2");
        assertEquals(4096, even.cardinality());
        assertEquals(even, CpuSet.parse(even.toString()));
        assertEquals("5555", Integer.toHexString(0x5555));
        assertEquals(even, CpuSet.parseMask("55555555,".repeat(255) + "55555555"));
        assertEquals(4096, all.andNot(even).cardinality());
        assertEquals(CpuSet.of(8191), all.andNot(CpuSet.range(0, 8190)));
    }
}
