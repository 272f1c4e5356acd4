package io.qv4j.topology.oshi;

import io.qv4j.topology.HwType;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.Topology;
import io.qv4j.topology.linux.SysfsReader;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** OSHI is the fallback source where there is no sysfs: on this Linux machine it must agree with sysfs on the basics. */
class OshiTopologyTest {

    @Test
    void oshiAgreesWithSysfsOnPusCoresAndPackagesOfThisMachine() {
        Topology oshi = OshiTopology.read();
        Topology sysfs = SysfsReader.live();
        assertEquals(sysfs.online(), oshi.online());
        assertEquals(cpusets(sysfs, HwType.CORE), cpusets(oshi, HwType.CORE));
        assertEquals(cpusets(sysfs, HwType.PACKAGE), cpusets(oshi, HwType.PACKAGE));
        assertEquals("oshi", oshi.source());
    }

    @Test
    void identityNamesTheProcessorAndMemory() {
        Map<String, String> id = OshiTopology.identity();
        assertFalse(id.getOrDefault("cpu.model", "").isBlank(), id.toString());
        assertFalse(id.getOrDefault("cpu.vendor", "").isBlank(), id.toString());
        assertFalse(Long.parseLong(id.get("memory.bytes")) <= 0, id.toString());
    }

    private static List<String> cpusets(Topology t, HwType type) {
        return t.objects(type).stream().map(HwObject::cpuset).sorted().map(Object::toString).toList();
    }
}
