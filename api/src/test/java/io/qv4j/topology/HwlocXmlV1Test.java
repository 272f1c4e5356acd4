package io.qv4j.topology;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** hwloc 1.x XML, and the bitmap forms hwloc writes (empty words, infinite sets), read as hwloc reads them. */
class HwlocXmlV1Test {

    /**
     * Written in hwloc 1.11's layout: NUMA nodes in the tree above the sockets, {@code Socket},
     * {@code Cache} with {@code depth} and {@code cache_type} (L1i included), page types,
     * distances, and PUs numbered 0-3 and 64-67, so that bitmaps have empty words.
     */
    private static Topology v1() throws Exception {
        try (InputStream in = HwlocXmlV1Test.class.getResourceAsStream("/hwloc-v1/2n2s2c2t-sparse.xml")) {
            assertNotNull(in);
            return HwlocXml.parse(in, "v1.xml");
        }
    }

    @Test
    void v1NumaNodesAboveSocketsAndCachesWithDepthAreReadLikeV2() throws Exception {
        Topology t = v1();
        assertEquals(CpuSet.parse("0-3,64-67"), t.online(), "complete_cpuset's offline PUs 4-5 are not online");
        assertEquals(CpuSet.parse("1-3,64-67"), t.allowed());
        assertEquals(8, t.pus().size());
        assertEquals(List.of(CpuSet.parse("0-3"), CpuSet.parse("64-67")), sets(t.objects(HwType.PACKAGE)));
        assertEquals(List.of(CpuSet.parse("0-3"), CpuSet.parse("64-67")), sets(t.numaNodes()));
        assertEquals(List.of(4294967296L, 8589934592L), t.numaNodes().stream().map(HwObject::memoryBytes).toList());
        assertEquals(sets(t.objects(HwType.PACKAGE)), sets(t.objects(HwType.L3)));
        List<CpuSet> cores = List.of(CpuSet.parse("0-1"), CpuSet.parse("2-3"), CpuSet.parse("64-65"), CpuSet.parse("66-67"));
        assertEquals(cores, sets(t.objects(HwType.L2)));
        assertEquals(cores, sets(t.objects(HwType.L1)), "one L1 per core: the instruction caches are not counted");
        assertEquals(cores, sets(t.objects(HwType.CORE)));
        assertEquals("Old Test CPU @ 2.00GHz", t.info().get("cpu.model"));
        assertEquals("oldbox", t.info().get("host.name"));
        assertEquals(List.of(new Device(HwType.GPU, "0000:01:00.0", "G200eR2", CpuSet.parse("0-3"))), t.devices(HwType.GPU));
        assertEquals(List.of(new Device(HwType.NIC, "0000:02:00.0", "eth0", CpuSet.parse("0-3"))), t.devices(HwType.NIC));
    }

    @Test
    void anInfiniteAllowedSetAllowsEveryPuAndAnInfiniteTailCoversThePusAboveItsWords() {
        Topology all = parse("0xf...f");
        assertEquals(all.online(), all.allowed());
        assertEquals(CpuSet.parse("1-3,64-67"), parse("0xf...f,,0x0000000e").allowed());
    }

    @Test
    void aFileWithMorePusThanLinuxSupportsIsRefusedBeforeTheTopologyIsBuilt() {
        StringBuilder xml = new StringBuilder("<topology><object type=\"Machine\">");
        for (int pu = 0; pu <= SyntheticSpec.MAX_PUS; pu++) xml.append("<object type=\"PU\" os_index=\"").append(pu).append("\"/>");
        xml.append("</object></topology>");
        TopologyException e = assertTimeoutPreemptively(Duration.ofSeconds(2), () -> assertThrows(TopologyException.class,
                () -> HwlocXml.parse(new ByteArrayInputStream(xml.toString().getBytes(StandardCharsets.UTF_8)), "many.xml")));
        assertEquals("many.xml: more than " + SyntheticSpec.MAX_PUS + " PU objects (the most Linux supports)", e.getMessage());
    }

    /** Two sockets without NUMA nodes, PUs 0-3 and 64-67, the machine's allowed_cpuset as given. */
    private static Topology parse(String allowed) {
        StringBuilder xml = new StringBuilder("<topology><object type=\"Machine\" cpuset=\"0x0000000f,,0x0000000f\" allowed_cpuset=\""
                + allowed + "\">");
        for (int s = 0; s < 2; s++) {
            xml.append("<object type=\"Socket\" os_index=\"").append(s).append("\" cpuset=\"")
                    .append(s == 0 ? "0x0000000f" : "0x0000000f,,0x0").append("\">");
            for (int pu = s * 64; pu < s * 64 + 4; pu++) {
                xml.append("<object type=\"PU\" os_index=\"").append(pu).append("\" cpuset=\"")
                        .append(mask(pu)).append("\"/>");
            }
            xml.append("</object>");
        }
        xml.append("</object></topology>");
        return HwlocXml.parse(new ByteArrayInputStream(xml.toString().getBytes(StandardCharsets.UTF_8)), "inline.xml");
    }

    /** hwloc's writing of a single PU: its word, then empty words, then 0x0 when the lowest word is zero. */
    private static String mask(int pu) {
        int word = pu / 32;
        StringBuilder sb = new StringBuilder(String.format("0x%08x", 1 << (pu % 32)));
        for (int w = word - 1; w >= 0; w--) sb.append(w == 0 ? ",0x0" : ",");
        return sb.toString();
    }

    private static List<CpuSet> sets(List<HwObject> objects) {
        return objects.stream().map(HwObject::cpuset).sorted().toList();
    }
}
