package io.qv4j.topology;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HwlocXmlTest {

    @TempDir
    Path dir;

    /** Two packages of two cores; PU 3 disallowed; a Group, an L1i, a v1-style Cache, devices. */
    static final String SMALL = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE topology SYSTEM "hwloc2.dtd">
            <topology version="2.0">
              <object type="Machine" os_index="0" cpuset="0x0000000f" complete_cpuset="0x0000003f" allowed_cpuset="0x00000007">
                <info name="HostName" value="box"/>
                <object type="Package" os_index="0" cpuset="0x00000003">
                  <info name="CPUModel" value="Test CPU"/>
                  <object type="NUMANode" os_index="0" cpuset="0x00000003" local_memory="1024"/>
                  <object type="Group" cpuset="0x00000003">
                    <object type="Cache" cpuset="0x00000001" depth="2" cache_type="0" cache_size="524288">
                      <object type="Cache" cpuset="0x00000001" depth="1" cache_type="2">
                        <object type="Core" os_index="0" cpuset="0x00000001"><object type="PU" os_index="0" cpuset="0x00000001"/></object>
                      </object>
                    </object>
                    <object type="L2Cache" cpuset="0x00000002" cache_size="1048576">
                      <object type="L1iCache" cpuset="0x00000002">
                        <object type="Core" os_index="1" cpuset="0x00000002"><object type="PU" os_index="1" cpuset="0x00000002"/></object>
                      </object>
                    </object>
                  </object>
                  <object type="Bridge" bridge_type="0-1">
                    <object type="PCIDev" pci_busid="0000:3b:00.0" pci_type="0302 [10de:1db8] [10de:131d] a1">
                      <info name="PCIDevice" value="Some GPU"/>
                      <object type="OSDev" name="card0" osdev_type="1"/>
                    </object>
                    <object type="PCIDev" pci_busid="0000:3c:00.0" pci_type="0207 [15b3:1013] [15b3:0013] 00">
                      <object type="OSDev" name="ib0" osdev_type="2"/>
                      <object type="OSDev" name="mlx5_0" osdev_type="3"/>
                    </object>
                  </object>
                </object>
                <object type="Package" os_index="1" cpuset="0x0000000c">
                  <object type="NUMANode" os_index="1" cpuset="0x0000000c" local_memory="2048"/>
                  <object type="Core" os_index="0" cpuset="0x00000004"><object type="PU" os_index="2" cpuset="0x00000004"/></object>
                  <object type="Core" os_index="1" cpuset="0x00000008"><object type="PU" os_index="3" cpuset="0x00000008"/></object>
                </object>
                <object type="OSDev" name="veth0" osdev_type="2"/>
                <object type="PCIDev" pci_busid="0000:00:02.0" pci_type="0300 [8086:0000] [0000:0000] 00"/>
              </object>
              <cpukind cpuset="0x0000000c"/>
              <cpukind cpuset="0x00000003"/>
            </topology>
            """;

    private Path write(String name, String content) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, content);
        return p;
    }

    @Test
    void readsObjectsDevicesAndSets() throws Exception {
        Path file = write("small.xml", SMALL);
        Topology t = HwlocXml.read(file);
        assertEquals(file.toString(), t.source());
        assertEquals(CpuSet.range(0, 3), t.online()); // complete_cpuset (offline PUs 4-5) is not online
        assertEquals(CpuSet.range(0, 2), t.allowed());
        assertEquals(2, t.objects(HwType.PACKAGE).size());
        assertEquals(List.of(CpuSet.of(0), CpuSet.of(1)), t.objects(HwType.L2).stream().map(HwObject::cpuset).toList());
        assertEquals(List.of(512L << 10, 1L << 20), t.objects(HwType.L2).stream().map(HwObject::cacheSize).toList(), "cache_size, v1 and v2 forms");
        assertEquals(0, t.objects(HwType.L1).size(), "instruction caches are not L1");
        assertEquals(4, t.objects(HwType.CORE).size());
        assertEquals(2048, t.numaNodes().get(1).memoryBytes());
        assertEquals("Test CPU", t.info().get("cpu.model"));
        assertEquals("box", t.info().get("host.name"));

        List<Device> gpus = t.devices(HwType.GPU);
        assertEquals(List.of("0000:00:02.0", "0000:3b:00.0"), gpus.stream().map(Device::pci).toList());
        assertEquals(CpuSet.range(0, 3), gpus.get(0).locality(), "under the machine: the whole machine");
        assertEquals(CpuSet.range(0, 1), gpus.get(1).locality(), "nearest ancestor with a cpuset: package 0");
        assertEquals("Some GPU", gpus.get(1).name());
        List<Device> nics = t.devices(HwType.NIC);
        assertEquals(1, nics.size(), "ib0 only: mlx5_0 is OpenFabrics, veth0 has no PCI device");
        assertEquals(new Device(HwType.NIC, "0000:3c:00.0", "ib0", CpuSet.range(0, 1)), nics.get(0));

        // two kinds with neither info nor forced efficiency: hwloc cannot rank them (it never reads an efficiency from XML)
        assertEquals(List.of(new CpuKind(-1, CpuSet.range(2, 3), java.util.Map.of(), -1), new CpuKind(-1, CpuSet.range(0, 1), java.util.Map.of(), -1)),
                t.cpuKinds());
        assertEquals(0, t.pu(0).efficiency());
    }

    @Test
    void cpuKindsAreRankedByForcedEfficiencyElseByFrequency() throws Exception {
        String kinds = "<cpukind cpuset=\"0x0000000c\" forced_efficiency=\"7\"><info name=\"FrequencyMaxMHz\" value=\"1000\"/></cpukind>"
                + "<cpukind cpuset=\"0x00000003\" forced_efficiency=\"2\"><info name=\"FrequencyMaxMHz\" value=\"3000\"/></cpukind>";
        Topology forced = HwlocXml.read(write("f.xml", SMALL.replaceAll("(?s)  <cpukind.*</topology>", kinds + "</topology>")));
        assertEquals(List.of(CpuSet.range(0, 1), CpuSet.range(2, 3)), forced.cpuKinds().stream().map(CpuKind::cpus).toList());
        assertEquals(List.of(0, 1), forced.cpuKinds().stream().map(CpuKind::efficiency).toList(), "ranks, not the forced values");
        assertEquals(1, forced.pu(3).efficiency());
        Topology byFrequency = HwlocXml.read(write("q.xml", SMALL.replaceAll("(?s)  <cpukind.*</topology>", kinds.replace(" forced_efficiency=\"2\"", "") + "</topology>")));
        assertEquals(List.of(CpuSet.range(2, 3), CpuSet.range(0, 1)), byFrequency.cpuKinds().stream().map(CpuKind::cpus).toList(),
                "one kind without a forced efficiency: by maximum frequency");
        assertEquals(java.util.Map.of("FrequencyMaxMHz", "3000"), byFrequency.cpuKinds().get(1).info());
    }

    @Test
    void aCpuKindWithoutCpusetOrTooManyKindsAreRefused() throws Exception {
        Path none = write("k.xml", SMALL.replace("<cpukind cpuset=\"0x0000000c\"/>", "<cpukind/>"));
        assertMessage(none, none + ": <cpukind> without a cpuset");
        Path many = write("m.xml", SMALL.replace("<cpukind cpuset=\"0x0000000c\"/>", "<cpukind cpuset=\"0x1\"/>".repeat(65)));
        assertMessage(many, many + ": 66 <cpukind> elements, more than 64");
        Path bad = write("e.xml", SMALL.replace("<cpukind cpuset=\"0x0000000c\"/>", "<cpukind cpuset=\"0x4\" forced_efficiency=\"x\"/>"));
        assertMessage(bad, bad + ": <cpukind> forced_efficiency 'x' is not a number");
    }

    @Test
    void parsesFromAStream() {
        Topology t = HwlocXml.parse(new ByteArrayInputStream(SMALL.getBytes(StandardCharsets.UTF_8)), "mem.xml");
        assertEquals("mem.xml", t.source());
        assertEquals(4, t.pus().size());
    }

    @Test
    void missingFile() {
        Path p = dir.resolve("nope.xml");
        TopologyException e = assertThrows(TopologyException.class, () -> HwlocXml.read(p));
        assertEquals(p + ": no such file", e.getMessage());
    }

    @Test
    void notXml() throws Exception {
        Path p = write("x.xml", "package:2 core:4\n");
        assertMessage(p, p + ": not XML");
        Path empty = write("empty.xml", "  \n");
        assertMessage(empty, empty + ": not hwloc XML: the file is empty");
    }

    @Test
    void truncated() throws Exception {
        Path p = write("t.xml", SMALL.substring(0, SMALL.indexOf("<object type=\"Package\" os_index=\"1\"")));
        String msg = assertMessage(p, p + ": truncated or malformed XML at line ");
        assertFalse(msg.contains("\n"), msg);
    }

    @Test
    void wrongRoot() throws Exception {
        Path p = write("w.xml", "<?xml version=\"1.0\"?>\n<foo><object type=\"PU\"/></foo>\n");
        assertMessage(p, p + ": not hwloc XML: root element is <foo>");
    }

    @Test
    void noPu() throws Exception {
        Path p = write("n.xml", "<topology version=\"2.0\"><object type=\"Machine\" cpuset=\"0x0\"/></topology>");
        assertMessage(p, p + ": no PU objects");
    }

    @Test
    void badCpuset() throws Exception {
        Path p = write("b.xml", SMALL.replace("cpuset=\"0x0000000c\">", "cpuset=\"0xzz\">"));
        assertMessage(p, p + ": bad cpuset '0xzz' on a Package object");
    }

    @Test
    void badCpusetOnACpuKindNamesTheElement() throws Exception {
        Path p = write("k.xml", SMALL.replace("<cpukind cpuset=\"0x0000000c\"/>", "<cpukind cpuset=\"0xZZZZ\"/>"));
        assertMessage(p, p + ": bad cpuset '0xZZZZ' on a <cpukind> element");
    }

    /** The DTD, external general and parameter entities all point at a local server that counts requests. */
    @Test
    void nothingExternalIsFetched() throws Exception {
        AtomicInteger hits = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", x -> {
            hits.incrementAndGet();
            byte[] body = "<!ENTITY leak \"LEAKED\">".getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        server.start();
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort();
            String xml = SMALL.replace("<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">",
                            "<!DOCTYPE topology SYSTEM \"" + url + "/hwloc2.dtd\" [\n"
                                    + "<!ENTITY ext SYSTEM \"" + url + "/secret\">\n"
                                    + "<!ENTITY % param SYSTEM \"" + url + "/param\"> %param;\n]>")
                    .replace("<info name=\"HostName\" value=\"box\"/>", "<info name=\"HostName\" value=\"box\"/>&ext;");
            Path p = write("xxe.xml", xml);
            try {
                Topology t = HwlocXml.read(p);
                assertFalse(t.info().toString().contains("LEAKED"));
            } catch (TopologyException e) {
                assertTrue(e.getMessage().startsWith(p + ": "), e.getMessage()); // a clean refusal is fine too
            }
            assertEquals(0, hits.get(), "the parser fetched an external resource");
        } finally {
            server.stop(0);
        }
    }

    @Test
    void entityExpansionIsBounded() throws Exception {
        StringBuilder dtd = new StringBuilder("<!DOCTYPE topology [\n<!ENTITY a0 \"xxxxxxxxxx\">\n");
        for (int i = 1; i < 12; i++) {
            dtd.append("<!ENTITY a").append(i).append(" \"").append(("&a" + (i - 1) + ";").repeat(10)).append("\">\n");
        }
        dtd.append("]>\n");
        Path p = write("bomb.xml", SMALL.replace("<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">", dtd)
                .replace("<info name=\"HostName\" value=\"box\"/>", "<info name=\"HostName\" value=\"&a11;\"/>"));
        TopologyException e = assertThrows(TopologyException.class, () -> HwlocXml.read(p));
        assertTrue(e.getMessage().startsWith(p + ": "), e.getMessage());
    }

    private static String assertMessage(Path p, String prefix) {
        TopologyException e = assertThrows(TopologyException.class, () -> HwlocXml.read(p));
        assertTrue(e.getMessage().startsWith(prefix), e.getMessage());
        return e.getMessage();
    }
}
