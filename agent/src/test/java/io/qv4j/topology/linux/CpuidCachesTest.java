package io.qv4j.topology.linux;

import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Decoding CPUID's cache leaves, with register values of real processors: PUs sharing a cache
 * agree on their APIC id above the cache's sharing bits; sizes are ways × partitions × line × sets.
 */
class CpuidCachesTest {

    /** "L2 0,4 262144" per cache instance, sorted: level, PUs, size in bytes. */
    static List<String> caches(RecordedCpuid cpuid, CpuSet pus) {
        CpuidCaches.Result r = CpuidCaches.probe(cpuid, pus);
        List<String> out = new ArrayList<>();
        for (CpuidCaches.Instance c : r.caches()) out.add("L" + c.level() + " " + c.cpus() + " " + c.size());
        out.sort(null);
        return out;
    }

    /** The AMD EPYC (family 1Ah) cloud VM under bhyve whose sysfs had no cache directories: leaf 0x8000001D answers zeros. */
    static RecordedCpuid bhyveEpyc() {
        return new RecordedCpuid()
                .all(0, 0, "0000000d 68747541 444d4163 69746e65")
                .pu(0, 1, 0, "00b00f21 07fe0800 fed83203 178bfbff")
                .pu(1, 1, 0, "00b00f21 0afe0800 fed83203 178bfbff")
                .all(0x80000000L, 0, "80000021 68747541 444d4163 69746e65")
                .all(0x80000001L, 0, "00b00f21 40000000 440001f1 25d3fbff")
                .all(0x80000005L, 0, "ff60ff40 ff60ff40 300c0140 20080140")
                .all(0x80000006L, 0, "40802040 60804040 04006140 0fe09140")
                .all(0x80000008L, 0, "00003030 20000005 00000000 00000000");
    }

    @Test
    void amdWithoutAnswersToTopologyExtensionsFallsBackToTheLegacyLeavesAsLstopoDoes() {
        // what lstopo 2.9 shows on that VM: L3 (508MB) + L2 (1024KB) + L1d (48KB) per PU
        assertEquals(List.of("L1 0 49152", "L1 1 49152", "L2 0 1048576", "L2 1 1048576", "L3 0 532676608", "L3 1 532676608"),
                caches(bhyveEpyc(), CpuSet.parse("0-1")));
    }

    /** Intel Core i7-2600 (Sandy Bridge, 4 cores × 2 threads; PU p and p+4 are one core's threads). */
    static RecordedCpuid sandyBridge() {
        RecordedCpuid c = new RecordedCpuid()
                .all(0, 0, "0000000d 756e6547 6c65746e 49656e69")
                .all(4, 0, "1c004121 01c0003f 0000003f 00000000")
                .all(4, 1, "1c004122 01c0003f 0000003f 00000000")
                .all(4, 2, "1c004143 01c0003f 000001ff 00000000")
                .all(4, 3, "1c03c163 03c0003f 00001fff 00000006")
                .all(0x80000000L, 0, "80000008 00000000 00000000 00000000");
        for (int pu = 0; pu < 8; pu++) {
            int apic = pu < 4 ? 2 * pu : 2 * (pu - 4) + 1;
            c.pu(pu, 1, 0, String.format("000206a7 %08x 1fbae3ff bfebfbff", (apic << 24) | 0x00100800));
            c.pu(pu, 0xB, 0, String.format("00000001 00000002 00000100 %08x", apic));
        }
        return c;
    }

    @Test
    void intelLeafFourSharesL1AndL2BetweenACoresThreadsAndTheL3AcrossThePackage() {
        assertEquals(List.of("L1 0,4 32768", "L1 1,5 32768", "L1 2,6 32768", "L1 3,7 32768",
                        "L2 0,4 262144", "L2 1,5 262144", "L2 2,6 262144", "L2 3,7 262144",
                        "L3 0-7 8388608"),
                caches(sandyBridge(), CpuSet.parse("0-7")));
    }

    @Test
    void onlyTheAllowedPusAreProbedAndCovered() {
        assertEquals(List.of("L1 1,5 32768", "L2 1,5 262144", "L3 1,5 8388608"), caches(sandyBridge(), CpuSet.parse("1,5")));
    }

    /** AMD Ryzen 7 3700X (Zen 2: two core complexes of 4 cores × 2 threads, each with its own 16 MiB L3). */
    static RecordedCpuid zen2() {
        RecordedCpuid c = new RecordedCpuid()
                .all(0, 0, "00000010 68747541 444d4163 69746e65")
                .all(0x80000000L, 0, "80000020 68747541 444d4163 69746e65")
                .all(0x80000001L, 0, "00870f10 20000000 75c237ff 2fd3fbff")
                .all(0x8000001DL, 0, "00004121 01c0003f 0000003f 00000000")
                .all(0x8000001DL, 1, "00004122 01c0003f 0000003f 00000000")
                .all(0x8000001DL, 2, "00004143 01c0003f 000003ff 00000002")
                .all(0x8000001DL, 3, "0001c163 03c0003f 00003fff 00000001")
                // the legacy leaves, which must not be used where 0x8000001D answers
                .all(0x80000006L, 0, "48006400 68006400 02006140 00809140");
        for (int pu = 0; pu < 16; pu++) {
            int apic = pu < 8 ? 2 * pu : 2 * (pu - 8) + 1;
            c.pu(pu, 1, 0, String.format("00870f10 %08x 7ed8320b 178bfbff", (apic << 24) | 0x00100800));
            c.pu(pu, 0xB, 0, String.format("00000001 00000002 00000100 %08x", apic));
        }
        return c;
    }

    @Test
    void amdTopologyExtensionsShareEachL3WithinOneCoreComplex() {
        List<String> got = caches(zen2(), CpuSet.parse("0-15"));
        assertEquals(List.of("L3 0-3,8-11 16777216", "L3 4-7,12-15 16777216"), got.subList(16, 18));
        assertEquals("L2 0,8 524288", got.get(8));
        assertEquals("L1 0,8 32768", got.get(0));
        assertEquals(18, got.size());
    }

    @Test
    void theX2ApicIdIsUsedWhereTheEightBitInitialApicIdWrapsAround() {
        // PUs 0 and 1 with x2APIC ids 0x100 and 0x101: leaf 1 shows both as 0x00
        RecordedCpuid c = new RecordedCpuid()
                .all(0, 0, "0000000d 756e6547 6c65746e 49656e69")
                .all(4, 0, "00000121 01c0003f 0000003f 00000000")
                .pu(0, 1, 0, "000206a7 00100800 1fbae3ff bfebfbff")
                .pu(1, 1, 0, "000206a7 00100800 1fbae3ff bfebfbff")
                .pu(0, 0xB, 0, "00000001 00000001 00000100 00000100")
                .pu(1, 0xB, 0, "00000001 00000001 00000100 00000101");
        assertEquals(List.of("L1 0 32768", "L1 1 32768"), caches(c, CpuSet.parse("0-1")));
    }

    @Test
    void pusReportingTheSameApicIdGiveNoCachesRatherThanMergedOnes() {
        Map<Integer, CpuidCaches.Pu> byPu = new LinkedHashMap<>();
        byPu.put(0, new CpuidCaches.Pu(5, List.of(new CpuidCaches.Seen(1, 32768, 0))));
        byPu.put(1, new CpuidCaches.Pu(5, List.of(new CpuidCaches.Seen(1, 32768, 0))));
        assertNull(CpuidCaches.group(byPu));
        RecordedCpuid c = bhyveEpyc().pu(1, 1, 0, "00b00f21 07fe0800 fed83203 178bfbff");
        CpuidCaches.Result r = CpuidCaches.probe(c, CpuSet.parse("0-1"));
        assertEquals(List.of(), r.caches());
        assertEquals("CPUID gives several PUs the same APIC id", r.note());
    }

    @Test
    void hybridL2sSharedByDifferentNumbersOfPusAreNotMerged() {
        // a performance core (APIC ids 8, 9; L2 per core) and an efficiency cluster (32, 34, 36, 38; one L2)
        // whose ids agree above their own shifts: 8 >> 1 == 32 >> 3
        Map<Integer, CpuidCaches.Pu> byPu = new LinkedHashMap<>();
        byPu.put(0, new CpuidCaches.Pu(8, List.of(new CpuidCaches.Seen(2, 1280 << 10, 1))));
        byPu.put(1, new CpuidCaches.Pu(9, List.of(new CpuidCaches.Seen(2, 1280 << 10, 1))));
        for (int i = 0; i < 4; i++) byPu.put(2 + i, new CpuidCaches.Pu(32 + 2 * i, List.of(new CpuidCaches.Seen(2, 2048 << 10, 3))));
        List<String> got = new ArrayList<>();
        for (CpuidCaches.Instance c : CpuidCaches.group(byPu)) got.add(c.cpus() + " " + c.size());
        assertEquals(List.of("0-1 1310720", "2-5 2097152"), got);
    }

    @Test
    void sharingCountsRoundUpToWholeApicIdBits() {
        assertEquals(0, CpuidCaches.ceilLog2(1));
        assertEquals(1, CpuidCaches.ceilLog2(2));
        assertEquals(2, CpuidCaches.ceilLog2(3));
        assertEquals(4, CpuidCaches.ceilLog2(16));
        assertEquals(5, CpuidCaches.ceilLog2(24));
    }
}
