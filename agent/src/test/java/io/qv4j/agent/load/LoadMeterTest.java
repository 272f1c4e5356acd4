package io.qv4j.agent.load;

import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
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
                m.sample(new long[] {11}).threads(), -1);
        PuLoad l = PuLoad.between(a, b);
        assertEquals(0.5, l.waited(11), 1e-9);
        assertEquals(-1, l.waited(12), "not asked in the second reading: not measured");
        assertEquals(1000, l.millis());
    }

    @Test
    void aThreadsRunShareIsItsRunTimeOverTheWindowForTheThreadsAsked() throws Exception {
        LoadMeter m = new LoadMeter(proc.toString());
        stat(new long[] {0, 0, 0});
        thread(11, "critical-loop-0", 0, 0, 0, 1_000, 0);
        LoadMeter.Sample a = m.sample(new long[] {11});
        thread(11, "critical-loop-0", 0, 0, 0, 1_000 + 100_000_000L, 0);
        LoadMeter.Sample now = m.sample(new long[] {11});
        LoadMeter.Sample b = new LoadMeter.Sample(a.nanos() + 1_000_000_000L, now.busy(), a.all(), now.threads(), -1);
        PuLoad l = PuLoad.between(a, b);
        assertEquals(0.1, l.ran(11), 1e-9, "100 ms run in a window of 1 s");
        assertEquals(-1, l.ran(12), "no such thread: not measured");
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

    /** The whole JVM's {@code /proc/self/stat}: its utime and stime, threads that ended included. */
    void self(long utime, long stime) throws Exception {
        Files.createDirectories(proc.resolve("self"));
        StringBuilder f = new StringBuilder("42 (java) S");
        for (int field = 4; field <= 52; field++) f.append(' ').append(field == 14 ? utime : field == 15 ? stime : 7);
        Files.writeString(proc.resolve("self/stat"), f.append('\n'));
    }

    @Test
    void aJvmAloneOnTheMachineSeesNoOthersWhereItsFloatingThreadsRanElsewhereThanLastSeen() throws Exception {
        LoadMeter m = new LoadMeter(proc.toString());
        stat(new long[] {0, 0, 0}, new long[] {0, 0, 0}, new long[] {0, 0, 0}, new long[] {0, 0, 0});
        thread(7, "main", 0, 0, 0, 0, 0);
        thread(8, "C2 CompilerThread0", 0, 0, 0, 0, 0);
        self(0, 0);
        LoadMeter.Sample a = m.sample(null);
        // 100 ticks: the JVM ran 40 on PU 1 and 30 on PU 3, but both threads were last seen on PU 0;
        // a thread that ended meanwhile ran 20 more on PU 2
        stat(new long[] {0, 0, 100}, new long[] {40, 0, 60}, new long[] {20, 0, 80}, new long[] {30, 0, 70});
        thread(7, "main", 40, 0, 0, 0, 0);
        thread(8, "C2 CompilerThread0", 30, 0, 0, 0, 0);
        self(80, 10);
        PuLoad l = PuLoad.between(a, m.sample(null));
        for (int pu = 0; pu < 4; pu++) assertEquals(0, l.of(pu), 1e-9, "pu " + pu);
    }

    @Test
    void othersWorkIsStillSeenWhereTheJvmsOwnFloatsBeside() throws Exception {
        LoadMeter m = new LoadMeter(proc.toString());
        stat(new long[] {0, 0, 0}, new long[] {0, 0, 0});
        thread(7, "main", 0, 0, 1, 0, 0);
        self(0, 0);
        LoadMeter.Sample a = m.sample(null);
        // a neighbour keeps PU 0 busy; the JVM's main thread ran 30 ticks on PU 0 and 30 on PU 1, last seen on 1
        stat(new long[] {100, 0, 0}, new long[] {30, 0, 70});
        thread(7, "main", 60, 0, 1, 0, 0);
        self(60, 0);
        PuLoad l = PuLoad.between(a, m.sample(null));
        assertEquals(CpuSet.of(0), l.busy(CpuSet.parse("0-1")));
        assertEquals(0.7, l.of(0), 1e-9, "all that is not the JVM's: 130 busy less 60 own, left on PU 0");
        assertEquals(0, l.of(1), 1e-9);
    }

    @Test
    void threadsThatDidNotRunKeepTheirFiguresUnreadWhileTheJvmsOwnTimeIsAccountedFor() throws Exception {
        LoadMeter m = new LoadMeter(proc.toString());
        stat(new long[] {0, 0, 0}, new long[] {0, 0, 0});
        thread(7, "main", 10, 0, 0, 0, 0);
        thread(8, "idle", 5, 0, 1, 0, 0);
        self(15, 0);
        m.sample(null); // both new: both read
        thread(7, "main", 20, 0, 0, 0, 0);
        self(25, 0);
        m.sample(null); // main ran, idle did not
        // idle's file says it ran 1 more tick (a tick the kernel has not given the whole JVM yet): not read
        thread(7, "main", 30, 0, 0, 0, 0);
        thread(8, "idle", 6, 0, 1, 0, 0);
        self(35, 0);
        LoadMeter.Sample kept = m.sample(null);
        assertEquals(30, kept.threads().get(7L)[0], "a thread that ran is read");
        assertEquals(5, kept.threads().get(8L)[0], "one that did not keeps its figure");
        assertEquals(-1, kept.threads().get(8L)[3], "and is not measured for waits");
        // the JVM's time grew 12 ticks, main's 10: two unaccounted for, so every thread is read
        thread(7, "main", 40, 0, 0, 0, 0);
        thread(8, "idle", 8, 0, 1, 0, 0);
        self(47, 0);
        LoadMeter.Sample all = m.sample(null);
        assertEquals(8, all.threads().get(8L)[0], "read again");
    }

    @Test
    void aThreadRunningUnderATickAReadingIsReadAgainOnceASecondHasPassed() throws Exception {
        thread(8, "gc", 5, 0, 0, 0, 0);
        thread(7, "main", 10, 0, 0, 0, 0);
        self(15, 0);
        stat(new long[] {0, 0, 0});
        LoadMeter m = new LoadMeter(proc.toString());
        m.sample(null);
        m.sample(null); // nothing ran: gc goes unread from now on
        thread(8, "gc", 6, 0, 0, 0, 0);
        self(16, 0);
        assertEquals(5, m.sample(null).threads().get(8L)[0], "a tick unaccounted for: gc not read");
        Thread.sleep(LoadMeter.ALL_READ_NANOS / 1_000_000 + 10);
        thread(8, "gc", 7, 0, 0, 0, 0);
        self(17, 0);
        assertEquals(7, m.sample(null).threads().get(8L)[0], "every thread read a second after they all were");
    }

    @Test
    void aThreadAskedForItsWaitOrNewIsAlwaysRead() throws Exception {
        self(15, 0);
        stat(new long[] {0, 0, 0});
        thread(7, "main", 10, 0, 0, 0, 0);
        thread(8, "pool-1-thread-1", 5, 0, 0, 1_000, 2_000);
        LoadMeter m = new LoadMeter(proc.toString());
        m.sample(null);
        m.sample(null); // nothing ran
        thread(8, "pool-1-thread-1", 5, 0, 0, 1_000, 9_000);
        thread(9, "pool-2-thread-1", 0, 0, 0, 0, 0);
        LoadMeter.Sample s = m.sample(new long[] {8});
        assertEquals(9_000, s.threads().get(8L)[3], "its wait read now");
        assertTrue(s.threads().containsKey(9L), "a new thread");
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
        m.offer(new LoadMeter.Sample(now.nanos() - second, now.busy(), now.all(), now.threads(), now.own()));
        m.offer(new LoadMeter.Sample(now.nanos() - second / 20, now.busy(), now.all(), now.threads(), now.own()));
        // the newest reading is 50 ms old, under the minimum: the view reaches back to the one a second old
        long millis = m.recent().millis();
        assertTrue(millis >= 1000 && millis < 2000, "window " + millis + " ms");
        // a reading offered sooner than the minimum after the newest is not kept: it would only shorten views
        m.offer(new LoadMeter.Sample(System.nanoTime(), now.busy(), now.all(), now.threads(), now.own()));
        assertTrue(m.recent().millis() >= 1000, "still reaching back");
    }

    @Test
    void poolsPlannedInABurstShareOneViewAndReadProcOnce() throws Exception {
        LoadMeter m = new LoadMeter(proc.toString());
        stat(new long[] {0, 0, 100});
        thread(7, "main", 0, 0, 0, 0, 0);
        m.start();
        long t0 = System.nanoTime();
        PuLoad first = m.recent();
        // /proc/stat changes (a neighbour got busy), but the next plan comes within the reuse window
        stat(new long[] {100, 0, 100});
        PuLoad second = m.recent();
        long took = System.nanoTime() - t0;
        Assumptions.assumeTrue(took < LoadMeter.REUSE_NANOS, "the two plans came " + took / 1_000_000 + " ms apart");
        assertSame(first, second);
        assertEquals(0, second.of(0), 1e-9, "the burst's view, not a new reading");
    }

    @Test
    void aTickMisplacedInAShortWindowIsNoEvidenceButTheSameShareOverALongerOneIs() {
        PuLoad first = PuLoad.of(new double[] {0.33, 0}, Map.of(), 26_000_000L);
        assertEquals(0.33, first.mean(CpuSet.of(0)), 1e-9);
        assertEquals(0, first.evident(CpuSet.of(0)), "one 10 ms tick of 26 ms");
        PuLoad later = PuLoad.of(new double[] {0.33, 0}, Map.of(), 500_000_000L);
        assertEquals(0.33, later.evident(CpuSet.of(0)), 1e-9, "165 ms of 500");
        assertEquals(0.6, PuLoad.of(new double[] {0.6, 0}, Map.of(), 37_000_000L).evident(CpuSet.of(0)), 1e-9, "two ticks of 37 ms: another JVM's start-up");
        assertEquals(0.665, PuLoad.of(new double[] {1, 0.33}, Map.of(), 100_000_000L).evident(CpuSet.of(0, 1)), 1e-9, "a core with a spinner, over 100 ms");
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
