package io.qv4j.agent.load;

import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Readings of a /proc written by the test: others' load per PU, this JVM's share taken out, and the threads' waits. */
class LoadMeterTest {

    @TempDir
    Path proc;

    /** {@code /proc/stat} with these (user, system, idle) ticks per PU. */
    void stat(long[]... cpus) throws Exception {
        StringBuilder s = new StringBuilder("cpu  1 2 3 4 5 6 7 8 0 0\n");
        for (int i = 0; i < cpus.length; i++) {
            s.append("cpu").append(i).append(' ').append(cpus[i][0]).append(" 0 ").append(cpus[i][1]).append(' ').append(cpus[i][2]).append(" 0 0 0 0 0 0\n");
        }
        s.append("intr 12345 0 0\nctxt 999\n");
        Files.writeString(proc.resolve("stat"), s);
    }

    /** This JVM's thread {@code tid} named {@code name}: utime, stime, last PU; and its schedstat (run, wait ns). */
    void thread(long tid, String name, long utime, long stime, int cpu, long runNs, long waitNs) throws Exception {
        Path dir = Files.createDirectories(proc.resolve("self/task/" + tid));
        StringBuilder f = new StringBuilder(tid + " (" + name + ") S");
        for (int field = 4; field <= 52; field++) {
            f.append(' ').append(field == 14 ? utime : field == 15 ? stime : field == 39 ? cpu : 7);
        }
        Files.writeString(dir.resolve("stat"), f.append('\n'));
        Files.writeString(dir.resolve("schedstat"), runNs + " " + waitNs + " 42\n");
        Files.writeString(proc.resolve("self/schedstat"), "1 2 3\n");
    }

    @Test
    void othersLoadIsEachPusBusyTimeLessThisJvmsThreadsOnIt() throws Exception {
        LoadMeter m = new LoadMeter(proc.toString());
        stat(new long[] {100, 0, 100}, new long[] {100, 0, 100});
        thread(7, "main", 10, 0, 1, 0, 0);
        LoadMeter.Sample a = m.sample(null);
        // 100 ticks later: PU 0 busy throughout with someone else's work; PU 1 busy 60, of which 50 this JVM's main thread
        stat(new long[] {200, 0, 100}, new long[] {150, 10, 140});
        thread(7, "main", 50, 10, 1, 0, 0);
        LoadMeter.Sample b = m.sample(null);
        PuLoad l = PuLoad.between(a, b);
        assertEquals(1.0, l.of(0), 1e-9);
        assertEquals(0.1, l.of(1), 1e-9);
        assertEquals(CpuSet.of(0), l.busy(CpuSet.parse("0-1")));
        assertEquals("pus 0 (100 %)", l.describeBusy(CpuSet.parse("0-1")));
        assertEquals(0, l.of(5), "a PU never read is idle");
    }

    @Test
    void aThreadsWaitIsItsRunQueueDelayOverTheWindowForTheThreadsAsked() throws Exception {
        LoadMeter m = new LoadMeter(proc.toString());
        stat(new long[] {0, 0, 0});
        thread(11, "pool-1-thread-1", 0, 0, 0, 1_000, 2_000);
        thread(12, "pool-1-thread-2", 0, 0, 0, 1_000, 2_000);
        LoadMeter.Sample a = m.sample(new long[] {11, 12});
        thread(11, "pool-1-thread-1", 0, 0, 0, 1_000, 2_000 + 500_000_000L);
        thread(12, "pool-1-thread-2", 0, 0, 0, 1_000, 2_000 + 500_000_000L);
        LoadMeter.Sample b = new LoadMeter.Sample(a.nanos() + 1_000_000_000L, m.sample(new long[] {11}).busy(), a.all(),
                m.sample(new long[] {11}).threads());
        PuLoad l = PuLoad.between(a, b);
        assertEquals(0.5, l.waited(11), 1e-9);
        assertEquals(-1, l.waited(12), "not asked in the second reading: not measured");
        assertEquals(1000, l.millis());
    }

    @Test
    void aThreadNameWithBlanksAndParenthesesIsReadFromItsLastParenthesis() throws Exception {
        LoadMeter m = new LoadMeter(proc.toString());
        stat(new long[] {0, 0, 100}, new long[] {0, 0, 100});
        thread(9, "a) b (c", 30, 20, 1, 0, 0);
        LoadMeter.Sample s = m.sample(null);
        assertEquals(50, s.threads().get(9L)[0]);
        assertEquals(1, s.threads().get(9L)[1]);
    }

    @Test
    void theCallingThreadsPuIsTheLastFieldItsStatNames() throws Exception {
        Path self = Files.createDirectories(proc.resolve("thread-self"));
        thread(5, "me", 1, 1, 3, 0, 0);
        Files.copy(proc.resolve("self/task/5/stat"), self.resolve("stat"));
        assertEquals(3, new LoadMeter(proc.toString()).currentPu());
        Files.delete(self.resolve("stat"));
        assertEquals(-1, new LoadMeter(proc.toString()).currentPu());
    }

    @Test
    void withoutProcStatThereIsNoReadingAndNoView() throws Exception {
        LoadMeter m = new LoadMeter(proc.toString());
        assertFalse(m.works());
        assertNull(m.sample(null));
        m.start();
        assertNull(m.recent());
    }

    @Test
    void aPlanningViewReachesBackToTheLastReadingAtLeastTheMinimumWindowOld() throws Exception {
        LoadMeter m = new LoadMeter(proc.toString());
        stat(new long[] {0, 0, 0});
        thread(7, "main", 0, 0, 0, 0, 0);
        assertTrue(m.works());
        LoadMeter.Sample now = m.sample(null);
        long second = 1_000_000_000L;
        m.offer(new LoadMeter.Sample(now.nanos() - second, now.busy(), now.all(), now.threads()));
        m.offer(new LoadMeter.Sample(now.nanos() - second / 20, now.busy(), now.all(), now.threads()));
        // the newest reading is 50 ms old, under the minimum: the view reaches back to the one a second old
        long millis = m.recent().millis();
        assertTrue(millis >= 1000 && millis < 2000, "window " + millis + " ms");
        // a reading offered sooner than the minimum after the newest is not kept: it would only shorten views
        m.offer(new LoadMeter.Sample(System.nanoTime(), now.busy(), now.all(), now.threads()));
        assertTrue(m.recent().millis() >= 1000, "still reaching back");
    }

    @Test
    void pusOfMillionsOfTicksAndATruncatedLineAreRead() throws Exception {
        Files.writeString(proc.resolve("stat"), "cpu0 9000000000 0 1 5 0 0 0 0\ncpu1 3");
        LoadMeter.Sample s = new LoadMeter(proc.toString()).sample(null);
        assertEquals(9000000001L, s.busy()[0]);
        assertEquals(3, s.busy()[1]);
        assertEquals(Map.of(), s.threads());
    }
}
