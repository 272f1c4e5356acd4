package io.qv4j.api;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The docs/partition.md example, run: rows by work on a TaskGroup, each member pinned to its piece. */
class PartitionExampleTest {

    @AfterEach
    void uninstall() {
        Platform.install(null);
    }

    @Test
    void eachRankProcessesItsPartOnItsOwnCores() throws Exception {
        RecordingPlatform platform = new RecordingPlatform(TestTopologies.machine(2, 4, 2));
        Platform.install(platform);
        int rows = 1000;
        int[] rowStart = new int[rows + 1];
        Random rnd = new Random(5);
        for (int r = 0; r < rows; r++) rowStart[r + 1] = rowStart[r] + (r < 100 ? 50 : rnd.nextInt(5)); // heavy first rows
        AtomicLongArray doneBy = new AtomicLongArray(rows);

        long[] cost = new long[rows];
        for (int r = 0; r < rows; r++) cost[r] = rowStart[r + 1] - rowStart[r] + 1;
        int threads = 8;
        Partition.Ranges parts = Partition.exact(cost, threads);
        Scope machine = Scope.of(Platform.current().discover());
        TaskGroup group = TaskGroup.create(threads);
        List<Thread> started = new ArrayList<>();
        for (int rank = 0; rank < threads; rank++) {
            TaskGroup.Member me = group.member(rank);
            Thread t = new Thread(() -> {
                Scope cores = me.split(machine, threads, Color.AUTO).orElseThrow();
                try (Binding pinned = cores.bind()) {
                    Partition.Range mine = parts.part(me.rank());
                    for (int r = mine.from(); r < mine.to(); r++) doneBy.set(r, me.rank() + 1);
                    me.barrier();
                }
            }, "rank-" + rank);
            started.add(t);
            t.start();
        }
        for (Thread t : started) t.join(10_000);

        for (int r = 0; r < rows; r++) {
            int rank = (int) doneBy.get(r) - 1;
            assertTrue(rank >= 0, "row " + r + " done");
            Partition.Range part = parts.part(rank);
            assertTrue(part.from() <= r && r < part.to());
        }
        // each member was pinned to its own core pair (then restored on close)
        assertEquals(threads, platform.history().stream().filter(e -> e.cpus().cardinality() == 2).map(e -> e.cpus()).distinct().count(),
                "every member on its own cores: " + platform.history());
        double average = parts.total() / (double) threads;
        assertTrue(parts.max() <= average + 51, "within one row of the average: " + parts);
    }
}
