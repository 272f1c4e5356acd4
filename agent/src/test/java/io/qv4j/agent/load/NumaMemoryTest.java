package io.qv4j.agent.load;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NumaMemoryTest {

    @Test
    void eachNodesPagesAreCountedInTheirMappingsPageSize(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("numa_maps");
        Files.writeString(f, """
                00400000 default file=/usr/lib/jvm/bin/java mapped=1 N0=1 kernelpagesize_kB=4
                7f0000000000 default anon=300 dirty=300 N0=100 N2=200 kernelpagesize_kB=4
                7f2000000000 bind:2 anon=2 dirty=2 N2=2 kernelpagesize_kB=2048
                7f4000000000 interleave:0-3 anon=4 dirty=4 N1=1 N3=3
                7fff00000000 default stack anon=3 dirty=3 active=0 N10=3 kernelpagesize_kB=4
                """);
        Map<Integer, Long> m = NumaMemory.read(f);
        assertEquals(Map.of(0, 101L * 4096, 1, 4096L, 2, 200L * 4096 + 2L * 2048 * 1024, 3, 3L * 4096, 10, 3L * 4096), m);
    }

    @Test
    void aMissingFileIsNoFigureAndAGarbledLineCountsNothing(@TempDir Path dir) throws Exception {
        assertTrue(NumaMemory.read(dir.resolve("absent")).isEmpty());
        Path f = dir.resolve("numa_maps");
        Files.writeString(f, "7f00 default N=5 Nx=3 N0= N1=-2 N99999999999999999999=1 kernelpagesize_kB=\n");
        assertTrue(NumaMemory.read(f).isEmpty(), NumaMemory.read(f).toString());
    }

    @Test
    void thisProcessHasItsMemorySomewhereWhereTheKernelSaysSo() {
        Map<Integer, Long> m = NumaMemory.of(ProcessHandle.current().pid());
        if (Files.exists(Path.of("/proc/self/numa_maps"))) assertTrue(m.values().stream().mapToLong(Long::longValue).sum() > 0, m.toString());
    }
}
