package io.qv4j.topology.linux;

import io.qv4j.topology.HwType;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.Topology;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Dumps whose files end in more than the kernel's one newline (copied, edited, padded) read as the kernel's own. */
class SysfsBlanksTest {

    @TempDir
    Path root;

    @ParameterizedTest
    @ValueSource(strings = {"\n ", "\n\t\n", "\n\n\n", " \n  ", "\n\u0000", "\r\n"})
    void listAndMaskFilesWithBlanksAfterTheNewlineAreRead(String end) throws IOException {
        write("sys/devices/system/cpu/online", "0-3" + end);
        for (int pu = 0; pu < 4; pu++) {
            String topo = "sys/devices/system/cpu/cpu" + pu + "/topology/";
            write(topo + "physical_package_id", "0" + end);
            write(topo + "core_id", pu / 2 + end);
            write(topo + "thread_siblings", (pu < 2 ? "00000003" : "0000000c") + end);
            write(topo + "core_siblings_list", "0-3" + end);
            String l3 = "sys/devices/system/cpu/cpu" + pu + "/cache/index3/";
            write(l3 + "level", "3" + end);
            write(l3 + "type", "Unified" + end);
            write(l3 + "shared_cpu_map", "00000000,0000000f" + end);
        }
        write("sys/devices/system/node/node0/cpulist", "0-3" + end);
        write("proc/self/status", "Name:\tjava\nCpus_allowed_list:\t1-3" + end);

        Topology t = SysfsReader.read(root);

        assertEquals(CpuSet.range(0, 3), t.online());
        assertEquals(CpuSet.range(1, 3), t.allowed());
        assertEquals(List.of(CpuSet.range(0, 3)), sets(t, HwType.PACKAGE));
        assertEquals(List.of(CpuSet.range(0, 1), CpuSet.range(2, 3)), sets(t, HwType.CORE));
        assertEquals(List.of(CpuSet.range(0, 3)), sets(t, HwType.L3));
        assertEquals(List.of(CpuSet.range(0, 3)), sets(t, HwType.NUMANODE));
    }

    private static List<CpuSet> sets(Topology t, HwType type) {
        return t.objects(type).stream().map(HwObject::cpuset).sorted().toList();
    }

    private void write(String rel, String content) throws IOException {
        Path p = root.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
    }
}
