package io.qv4j.demo;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class ThreadsTest {

    @Test
    void percentilesAreNearestRank() {
        long[] v = new long[100];
        for (int i = 0; i < 100; i++) v[i] = i + 1;
        assertEquals(50, Threads.percentile(v, 100, 50));
        assertEquals(99, Threads.percentile(v, 100, 99));
        assertEquals(100, Threads.percentile(v, 100, 99.9));
        assertEquals(1, Threads.percentile(v, 100, 0));
        assertEquals(0, Threads.percentile(v, 0, 50));
        assertEquals(2.5, Threads.median(new double[] {4, 1, 3, 2}));
    }

    @Test
    void cpulistsExpand() {
        assertEquals(List.of(0, 1, 2, 3, 8), Threads.cpulist("0-3,8"));
        assertEquals(List.of(), Threads.cpulist("?"));
    }

    @Test
    void namesSortNaturally() {
        List<String> names = new java.util.ArrayList<>(List.of("w-10", "w-9", "main", "w-1"));
        names.sort(Threads::naturalOrder);
        assertEquals(List.of("main", "w-1", "w-9", "w-10"), names);
    }

    @Test
    void readsThisThreadFromTheKernel() {
        assumeTrue(Files.isDirectory(Path.of("/proc/thread-self")));
        Threads.seen();
        Threads.Row me = Threads.rows().stream().filter(r -> r.tid() == Threads.tid()).findFirst().orElseThrow();
        assertEquals(Thread.currentThread().getName(), me.name());
        assertTrue(Threads.cpulist(me.allowed()).contains(me.lastCpu()), me.toString());
        assertTrue(me.migrations() >= me.migrationsSinceSeen() && me.migrationsSinceSeen() >= 0, me.toString());
    }
}
