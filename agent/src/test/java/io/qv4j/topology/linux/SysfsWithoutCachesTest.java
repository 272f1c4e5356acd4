package io.qv4j.topology.linux;

import io.qv4j.api.Scope;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.HwType;
import io.qv4j.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A machine whose sysfs has no cache directories: caches from CPUID when live, else a note saying why there are none. */
class SysfsWithoutCachesTest {

    /** The i7-2600 of {@link CpuidCachesTest#sandyBridge()} as sysfs shows it on a VM: cores and a package, no cache/. */
    static Path sandyBridgeWithoutCaches(Path root) throws IOException {
        Path cpu = root.resolve("sys/devices/system/cpu");
        write(cpu.resolve("online"), "0-7");
        for (int pu = 0; pu < 8; pu++) {
            Path topo = cpu.resolve("cpu" + pu + "/topology");
            write(topo.resolve("core_cpus_list"), (pu % 4) + "," + (pu % 4 + 4));
            write(topo.resolve("package_cpus_list"), "0-7");
            write(topo.resolve("physical_package_id"), "0");
            write(topo.resolve("core_id"), String.valueOf(pu % 4));
        }
        write(root.resolve("proc/self/status"), "Name:\tjava\nCpus_allowed_list:\t0-7\n");
        return root;
    }

    static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text + "\n");
    }

    static List<String> caches(Topology t) {
        List<String> out = new ArrayList<>();
        for (HwType type : new HwType[] {HwType.L1, HwType.L2, HwType.L3}) {
            for (HwObject o : t.objects(type)) out.add(type + " " + o.cpuset() + " " + o.cacheSize());
        }
        return out;
    }

    @Test
    void liveMachineWithoutCacheDirectoriesGetsItsCachesFromCpuidAndSaysSo(@TempDir Path dir) throws IOException {
        Topology t = SysfsReader.readAsLive(sandyBridgeWithoutCaches(dir), CpuidCachesTest.sandyBridge());
        assertEquals(List.of("L1 0,4 32768", "L1 1,5 32768", "L1 2,6 32768", "L1 3,7 32768",
                "L2 0,4 262144", "L2 1,5 262144", "L2 2,6 262144", "L2 3,7 262144", "L3 0-7 8388608"), caches(t));
        assertEquals("cpuid", t.info().get("caches.source"));
        assertTrue(t.info().get("caches.note").contains("sysfs has no cache directories"), t.info().toString());
        assertEquals(4, Scope.of(t).splitAt(HwType.L2).pieces().size());
        assertEquals(1, Scope.of(t).splitAt(HwType.L3).pieces().size());
        // caches sit between the package and the cores, as lstopo nests them
        HwObject core = t.objects(HwType.CORE).get(0);
        assertEquals(HwType.L1, core.parent().type());
        assertEquals(HwType.PACKAGE, t.objects(HwType.L3).get(0).ancestor(HwType.PACKAGE).type());
    }

    @Test
    void withoutCpuidSplittingAtACacheLevelNamesTheLevelAndWhyThereAreNoCaches(@TempDir Path dir) throws IOException {
        Topology t = SysfsReader.readAsLive(sandyBridgeWithoutCaches(dir), Cpuid.none("CPUID exists only on x86 (this is aarch64)"));
        assertEquals(List.of(), caches(t));
        assertEquals("none", t.info().get("caches.source"));
        String message = assertThrows(IllegalArgumentException.class, () -> Scope.of(t).splitAt(HwType.L3)).getMessage();
        assertTrue(message.startsWith("cannot split at l3: no l3 in "), message);
        assertTrue(message.contains("sysfs has no cache directories and CPUID exists only on x86 (this is aarch64)"), message);
    }

    @Test
    void aDumpWithoutCacheDirectoriesIsNeverFilledFromThisMachinesCpuid(@TempDir Path dir) throws IOException {
        Topology t = SysfsReader.read(sandyBridgeWithoutCaches(dir));
        assertEquals(List.of(), caches(t));
        assertEquals("none", t.info().get("caches.source"));
        assertTrue(t.info().get("caches.note").contains("CPUID would describe this machine, not the dump"), t.info().toString());
    }

    @Test
    void cpuidIsNotTouchedWhereSysfsHasCaches(@TempDir Path dir) throws IOException {
        Path root = sandyBridgeWithoutCaches(dir);
        for (int pu = 0; pu < 8; pu++) {
            Path index = root.resolve("sys/devices/system/cpu/cpu" + pu + "/cache/index3");
            write(index.resolve("level"), "3");
            write(index.resolve("type"), "Unified");
            write(index.resolve("shared_cpu_list"), "0-7");
        }
        Cpuid untouchable = new Cpuid() {
            @Override
            public String unavailable() {
                throw new AssertionError("CPUID consulted on the normal path");
            }

            @Override
            public boolean moveTo(int pu) {
                throw new AssertionError("CPUID consulted on the normal path");
            }

            @Override
            public int[] query(int leaf, int subleaf) {
                throw new AssertionError("CPUID consulted on the normal path");
            }
        };
        Topology t = SysfsReader.readAsLive(root, untouchable);
        assertEquals(List.of("L3 0-7 0"), caches(t));
        assertEquals("sysfs", t.info().get("caches.source"));
    }
}
