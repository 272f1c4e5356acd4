package io.qv4j.agent.platform;

import io.qv4j.agent.cli.plan.TopologyFixtureTest;
import io.qv4j.topology.CpuKind;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Device;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.HwType;
import io.qv4j.topology.Topology;
import io.qv4j.topology.TopologyBuilder;
import io.qv4j.topology.TopologyException;
import io.qv4j.topology.linux.SysfsReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TopologyCacheTest {

    private static final String BUILD = "0123456789abcdef";
    private static final String KEY = "0123456789abcdef\nboot b\nonline 0-1\n";

    /** Everything a topology says, in one string: the tree with indexes, sets and sizes, the NUMA nodes, devices and info. */
    static String described(Topology t) {
        StringBuilder s = new StringBuilder();
        s.append(t.source()).append(" online ").append(t.online()).append(" allowed ").append(t.allowed()).append('\n');
        tree(s, t.root(), "");
        for (HwObject n : t.numaNodes()) s.append("numa ").append(n.osIndex()).append(' ').append(n.cpuset()).append(' ').append(n.memoryBytes()).append('\n');
        for (Device d : t.devices()) s.append(d).append('\n');
        for (CpuKind k : t.cpuKinds()) s.append(k).append('\n');
        s.append(t.info()).append('\n');
        return s.toString();
    }

    private static void tree(StringBuilder s, HwObject o, String indent) {
        s.append(indent).append(o.type()).append(" L#").append(o.logicalIndex()).append(" P#").append(o.osIndex()).append(' ').append(o.cpuset())
                .append(" mem ").append(o.memoryBytes()).append(" cache ").append(o.cacheSize()).append(" eff ").append(o.efficiency()).append('\n');
        for (HwObject c : o.children()) tree(s, c, indent + "  ");
    }

    static Stream<Path> fixtures() throws Exception {
        return TopologyFixtureTest.fixtureInputs();
    }

    private static Topology read(Path input) throws Exception {
        return input.toString().endsWith(".xml") ? TopologyInput.input(input.toString()) : SysfsReader.read(TopologyFixtureTest.dump(input));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    void everyFixtureComesBackFromItsEntryAsItWasRead(Path input) throws Exception {
        Topology read = read(input);
        Topology back = TopologyCache.decode(TopologyCache.encode(read, KEY), KEY, read.allowed());
        assertNotNull(back, input.toString());
        // the source is "live" for entries, which only the live machine makes
        assertEquals(described(read).replaceFirst("^\\S+", "live"), described(back));
    }

    @Test
    void cpuKindsAndMemoryOnlyNodesComeBack() {
        // kinds as the Arm fixture's capacities give them (forced), and a NUMA node of memory alone
        Topology t = new TopologyBuilder("live").online(CpuSet.range(0, 5)).add(HwType.CORE, 0, CpuSet.range(0, 1))
                .add(HwType.CORE, 1, CpuSet.range(2, 3)).add(HwType.CORE, 2, CpuSet.range(4, 5))
                .cpuKind(CpuSet.range(0, 1), Map.of("FrequencyMaxMHz", "1800"), -1)
                .cpuKind(CpuSet.range(2, 5), Map.of("FrequencyMaxMHz", "2400"), -1)
                .cpuKind(CpuSet.range(0, 1), Map.of("LinuxCapacity", "446"), 0)
                .cpuKind(CpuSet.range(2, 3), Map.of("LinuxCapacity", "871"), 1)
                .cpuKind(CpuSet.range(4, 5), Map.of("LinuxCapacity", "1024"), 2)
                .numaNode(0, CpuSet.range(0, 5), 1L << 30).numaNode(1, CpuSet.empty(), 1L << 33).build();
        Topology back = TopologyCache.decode(TopologyCache.encode(t, KEY), KEY, t.allowed());
        assertEquals(described(t), described(back));
        assertEquals(3, back.cpuKinds().size());
        assertEquals(2, back.pu(5).efficiency());
        assertEquals(Map.of("FrequencyMaxMHz", "2400", "LinuxCapacity", "871"), back.cpuKinds().get(1).info());
        assertEquals(2, back.numaNodes().size());
    }

    @Test
    void unrankedCpuKindsComeBackInTheirOrder() {
        // two kinds hwloc cannot rank (equal base frequencies): efficiency -1, in the order found
        Topology t = new TopologyBuilder("live").online(CpuSet.range(0, 3))
                .cpuKind(CpuSet.range(2, 3), Map.of("FrequencyBaseMHz", "1200"), -1)
                .cpuKind(CpuSet.range(0, 1), Map.of("FrequencyBaseMHz", "1200", "CoreType", "x"), -1).build();
        Topology back = TopologyCache.decode(TopologyCache.encode(t, KEY), KEY, t.allowed());
        assertEquals(t.cpuKinds(), back.cpuKinds());
        assertEquals(-1, back.cpuKinds().get(0).efficiency());
        assertEquals(CpuSet.range(2, 3), back.cpuKinds().get(0).cpus());
    }

    private static byte[] entry() throws Exception {
        Path fixture = TopologyFixtureTest.fixtures().resolve("sysfs/40intel64-2g2n4c+pcilocality.tar.bz2");
        return TopologyCache.encode(SysfsReader.read(TopologyFixtureTest.dump(fixture)), KEY);
    }

    @Test
    void anEntryWithAnyByteChangedIsIgnored() throws Exception {
        byte[] good = entry();
        assertNotNull(TopologyCache.decode(good, KEY, CpuSet.range(0, 39)));
        for (int i = 0; i < good.length; i += 7) {
            byte[] bad = good.clone();
            bad[i] ^= 0x01;
            assertNull(TopologyCache.decode(bad, KEY, CpuSet.range(0, 39)), "byte " + i + " changed");
        }
    }

    @Test
    void aTruncatedOrEmptyEntryIsIgnored() throws Exception {
        byte[] good = entry();
        for (int n : new int[] {0, 1, 20, good.length / 2, good.length - 2, good.length - 1}) {
            assertNull(TopologyCache.decode(Arrays.copyOf(good, n), KEY, CpuSet.range(0, 39)), n + " bytes of " + good.length);
        }
    }

    @Test
    void anEntryForAnotherStateIsIgnored() throws Exception {
        byte[] good = entry();
        assertNull(TopologyCache.decode(good, KEY.replace("boot b", "boot c"), CpuSet.range(0, 39)), "after a reboot");
        assertNull(TopologyCache.decode(good, KEY + "net eth1\n", CpuSet.range(0, 39)), "a longer key");
        assertNull(TopologyCache.decode(good, KEY.substring(0, KEY.length() - 1), CpuSet.range(0, 39)), "a shorter key");
    }

    @Test
    void theAllowedSetIsThisStartsNotTheEntrys() throws Exception {
        Topology back = TopologyCache.decode(entry(), KEY, CpuSet.of(3, 5, 77));
        assertEquals(CpuSet.of(3, 5), back.allowed(), "this start's allowed set, cut to the online PUs");
    }

    /** The live machine through a cache in {@code dir}: read, kept, then taken from the entry. */
    @Test
    void theLiveMachineIsKeptThenTakenFromTheEntryUnchanged(@TempDir Path dir) throws Exception {
        Topology fresh = SysfsReader.live();
        TopologyCache cache = new TopologyCache(dir, BUILD);
        Topology first = cache.live(null);
        assertFalse(cache.hit());
        List<Path> entries = entries(dir);
        assertEquals(1, entries.size(), entries.toString());
        assertTrue(Files.readString(entries.get(0)).contains("boot "), "the key is in the entry");
        Topology second = cache.live(null);
        assertTrue(cache.hit(), "the second reading comes from the entry");
        assertEquals(described(fresh), described(first));
        assertEquals(described(fresh), described(second));
    }

    @Test
    void aDamagedLiveEntryIsReadAgainAndWrittenAnew(@TempDir Path dir) throws Exception {
        TopologyCache cache = new TopologyCache(dir, BUILD);
        Path entry = keptEntry(cache, dir);
        byte[] good = Files.readAllBytes(entry);
        byte[] bad = good.clone();
        bad[bad.length / 2] ^= 0x20;
        Files.write(entry, bad);
        Topology t = cache.live(null);
        assertFalse(cache.hit());
        assertEquals(described(SysfsReader.live()), described(t));
        assertArrayEquals(good, Files.readAllBytes(entry), "written anew");
    }

    @Test
    void aLinkAtTheEntrysNameIsNotFollowed(@TempDir Path dir) throws Exception {
        TopologyCache cache = new TopologyCache(dir, BUILD);
        Path entry = keptEntry(cache, dir);
        byte[] valid = Files.readAllBytes(entry);
        Path elsewhere = Files.write(dir.resolveSibling(dir.getFileName() + "-planted"), valid);
        Files.delete(entry);
        Files.createSymbolicLink(entry, elsewhere);
        cache.live(null);
        assertFalse(cache.hit(), "a link is never read, even to a valid entry");
        assertTrue(Files.isSymbolicLink(entry), "nor replaced");
        assertArrayEquals(valid, Files.readAllBytes(elsewhere), "nor written through");
        Files.delete(elsewhere);
    }

    @Test
    void outsideTheAgentJarThereIsNoBuildIdAndNothingIsKept() throws Exception {
        TopologyCache cache = TopologyCache.open(); // these classes come from a directory: no build id
        for (int i = 0; i < 2; i++) {
            assertEquals(described(SysfsReader.live()), described(cache.live(null)));
            assertFalse(cache.hit(), "reading " + i + " is never from the cache");
        }
    }

    /** The entry a first reading keeps. */
    private static Path keptEntry(TopologyCache cache, Path dir) throws Exception {
        cache.live(null);
        List<Path> kept = entries(dir);
        assertEquals(1, kept.size(), kept.toString());
        return kept.get(0);
    }

    private static List<Path> entries(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(TopologyCache.SUFFIX)).sorted().toList();
        }
    }

    @Test
    void textWithATabIsNotKeptRatherThanMisread() {
        Topology t = new TopologyBuilder("live").online(CpuSet.of(0)).info("cpu.model", "a\tb").build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TopologyCache.encode(t, KEY));
        assertTrue(e.getMessage().contains("tab"), e.getMessage());
    }

    @Test
    void aStateThatCannotBeReadMeansTheMachineIsReadAndNothingKept(@TempDir Path dir) throws Exception {
        TopologyCache cache = new TopologyCache(dir, BUILD, new TopologyCache.States() {
            @Override
            public SysfsReader.LiveState read(boolean cpuid) {
                throw new TopologyException("/sys/class/net: cannot list");
            }
        });
        assertEquals(described(SysfsReader.live()), described(cache.live(null)));
        assertFalse(cache.hit());
        assertEquals(0, entries(dir).size());
    }

    @Test
    void aMachineThatChangedWhileItWasReadIsNotKept(@TempDir Path dir) throws Exception {
        SysfsReader.LiveState real = SysfsReader.liveState(false);
        int[] reads = {0};
        TopologyCache cache = new TopologyCache(dir, BUILD, new TopologyCache.States() {
            @Override
            public SysfsReader.LiveState read(boolean cpuid) {
                // the second look, after the reading, sees another set of network interfaces
                return reads[0]++ == 0 ? real : new SysfsReader.LiveState(real.fingerprint() + "net eth9\n", real.allowed());
            }
        });
        cache.live(null);
        assertEquals(2, reads[0], "looked before and after the reading");
        assertEquals(0, entries(dir).size(), "nothing kept");
    }
}
