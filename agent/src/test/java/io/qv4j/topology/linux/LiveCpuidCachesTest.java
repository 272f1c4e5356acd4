package io.qv4j.topology.linux;

import io.qv4j.agent.bind.Binders;
import io.qv4j.agent.config.Options;
import io.qv4j.api.Scope;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.HwType;
import io.qv4j.topology.HwlocXml;
import io.qv4j.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * This machine (x86 with the agent's native library), read with its sysfs {@code cache/}
 * directories hidden: the caches CPUID gives match sysfs's where sysfs has them, and lstopo's
 * where lstopo is installed, in levels, sizes and sharing.
 */
class LiveCpuidCachesTest {

    /** The live machine's CPU, NUMA and allowed-set files, without any cache/ directory. */
    static Path liveWithoutCaches(Path root) throws IOException {
        Path cpu = Path.of("/sys/devices/system/cpu");
        copy(cpu.resolve("online"), root);
        try (Stream<Path> s = Files.list(cpu)) {
            for (Path d : s.filter(p -> p.getFileName().toString().matches("cpu\\d+")).toList()) {
                copy(d.resolve("online"), root);
                if (!Files.isDirectory(d.resolve("topology"))) continue;
                try (Stream<Path> files = Files.list(d.resolve("topology"))) {
                    for (Path f : files.toList()) copy(f, root);
                }
            }
        }
        Path nodes = Path.of("/sys/devices/system/node");
        if (Files.isDirectory(nodes)) {
            try (Stream<Path> s = Files.list(nodes)) {
                for (Path n : s.filter(p -> p.getFileName().toString().matches("node\\d+")).toList()) {
                    copy(n.resolve("cpulist"), root);
                    copy(n.resolve("meminfo"), root);
                }
            }
        }
        copy(Path.of("/proc/self/status"), root);
        return root;
    }

    private static void copy(Path live, Path root) throws IOException {
        if (!Files.isRegularFile(live) || !Files.isReadable(live)) return;
        Path to = root.resolve(live.toString().substring(1));
        Files.createDirectories(to.getParent());
        Files.write(to, Files.readAllBytes(live));
    }

    static Cpuid liveCpuid() {
        String arch = System.getProperty("os.arch");
        assumeTrue(arch.equals("amd64") || arch.equals("x86_64"), "CPUID is x86 only; this is " + arch);
        Cpuid cpuid = Binders.cpuid(Options.Bind.ON);
        assumeTrue(cpuid.unavailable() == null, "no CPUID here: " + cpuid.unavailable());
        return cpuid;
    }

    /** "L2 0-1 1048576" per cache, as level, PUs (cut to {@code pus}), size (or not). */
    static List<String> caches(Topology t, CpuSet pus, boolean sizes) {
        List<String> out = new ArrayList<>();
        for (HwType type : new HwType[] {HwType.L1, HwType.L2, HwType.L3}) {
            for (HwObject o : t.objects(type)) {
                CpuSet cut = o.cpuset().and(pus);
                if (!cut.isEmpty()) out.add(type + " " + cut + (sizes ? " " + o.cacheSize() : ""));
            }
        }
        out.sort(null);
        return out;
    }

    @Test
    void cpuidGivesTheCachesOfThisMachineWithItsCacheDirectoriesHidden(@TempDir Path dir) throws Exception {
        Cpuid cpuid = liveCpuid();
        Topology t = SysfsReader.readAsLive(liveWithoutCaches(dir), cpuid);
        assertEquals("cpuid", t.info().get("caches.source"), t.info().toString());
        for (HwType level : new HwType[] {HwType.L1, HwType.L2}) {
            CpuSet covered = CpuSet.empty();
            for (HwObject o : t.objects(level)) covered = covered.or(o.cpuset());
            assertEquals(t.allowed(), covered, level + " on every allowed PU");
        }
        if (!t.objects(HwType.L3).isEmpty()) assertFalse(Scope.of(t).splitAt(HwType.L3).pieces().isEmpty());

        if (Files.isDirectory(Path.of("/sys/devices/system/cpu/cpu0/cache"))) {
            Topology sysfs = SysfsReader.live();
            assertEquals(caches(sysfs, t.allowed(), false), caches(t, t.allowed(), false), "sharing as sysfs has it");
            assertEquals(sysfsSizes(sysfs.allowed()), caches(t, t.allowed(), true), "sizes as sysfs has them");
        }
        List<String> lstopo = lstopo(t.allowed());
        if (lstopo != null) assertEquals(lstopo, caches(t, t.allowed(), true), "levels, sharing and sizes as lstopo shows them");
    }

    /** The data and unified caches of sysfs with their size files ("48K"). */
    private static List<String> sysfsSizes(CpuSet allowed) throws IOException {
        List<String> out = new ArrayList<>();
        for (int pu = allowed.first(); pu >= 0; pu = allowed.next(pu + 1)) {
            try (Stream<Path> s = Files.list(Path.of("/sys/devices/system/cpu/cpu" + pu + "/cache"))) {
                for (Path index : s.filter(p -> p.getFileName().toString().startsWith("index")).toList()) {
                    String type = Files.readString(index.resolve("type")).strip();
                    int level = Integer.parseInt(Files.readString(index.resolve("level")).strip());
                    if (type.equals("Instruction") || level > 3) continue;
                    CpuSet shared = CpuSet.parse(Files.readString(index.resolve("shared_cpu_list")).strip()).and(allowed);
                    if (shared.first() != pu) continue;
                    String size = Files.readString(index.resolve("size")).strip();
                    long bytes = Long.parseLong(size.substring(0, size.length() - 1)) << (size.endsWith("M") ? 20 : 10);
                    out.add("L" + level + " " + shared + " " + bytes);
                }
            }
        }
        out.sort(null);
        return out;
    }

    /** What lstopo shows (its XML, read by the same parser as a user's file), or null when it is not installed. */
    private static List<String> lstopo(CpuSet allowed) throws Exception {
        Process p;
        try {
            p = new ProcessBuilder("lstopo-no-graphics", "--of", "xml", "-").redirectErrorStream(false).start();
        } catch (IOException notInstalled) {
            return null;
        }
        byte[] xml = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) return null;
        Topology t = HwlocXml.parse(new ByteArrayInputStream(xml), "lstopo");
        List<String> out = caches(t, allowed, true);
        assertFalse(out.stream().anyMatch(c -> c.endsWith(" 0")), "a size for every lstopo cache: " + out);
        return out;
    }
}
