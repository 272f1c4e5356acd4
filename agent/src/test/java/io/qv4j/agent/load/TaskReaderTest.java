package io.qv4j.agent.load;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Another process's threads and every PU, from a /proc written by the test. */
class TaskReaderTest {

    @TempDir
    Path proc;

    @Test
    void puTicksAreBusyAndAllWithStealBusyAndNoRowForAPuWithoutALine() throws Exception {
        // user nice system idle iowait irq softirq steal guest guest_nice
        Files.writeString(proc.resolve("stat"), "cpu  9 9 9 9 9 9 9 9 0 0\ncpu0 10 1 2 100 3 4 5 6 0 0\ncpu2 7 0 0 50 0 0 0 0 0 0\nintr 1 2\n");
        long[][] t = new TaskReader(proc).puTicks();
        assertEquals(3, t.length);
        assertArrayEquals(new long[] {28, 131}, t[0], "busy: all but idle and iowait");
        assertNull(t[1], "offline: no line");
        assertArrayEquals(new long[] {7, 57}, t[2]);
    }

    @Test
    void noStatNoPus() {
        assertEquals(0, new TaskReader(proc).puTicks().length);
    }

    @Test
    void aThreadsTicksMigrationsLastPuAndWait() throws Exception {
        Path t = task(4242, 101, "a (b) c", 30, 12, 3);
        Files.writeString(t.resolve("sched"), "a (101, #threads: 2)\n---------\nse.exec_start          :      1.5\nse.nr_migrations       :                    7\nnr_switches : 9\n");
        Files.writeString(t.resolve("schedstat"), "123456789 5000 42\n");
        assertArrayEquals(new long[] {42, 7, 3, 5000}, new TaskReader(proc).task(4242, 101));
    }

    @Test
    void withoutSchedOrSchedstatThoseAreUnknown() throws Exception {
        task(4242, 102, "w", 1, 1, 0);
        assertArrayEquals(new long[] {2, -1, 0, -1}, new TaskReader(proc).task(4242, 102));
    }

    @Test
    void aThreadThatIsGoneIsNull() {
        assertNull(new TaskReader(proc).task(4242, 103));
    }

    /** PROC/PID/task/TID/stat with these utime, stime and last PU. */
    Path task(long pid, long tid, String name, long utime, long stime, int pu) throws Exception {
        Path dir = Files.createDirectories(proc.resolve(pid + "/task/" + tid));
        StringBuilder f = new StringBuilder(tid + " (" + name + ") S");
        for (int field = 4; field <= 52; field++) f.append(' ').append(field == 14 ? utime : field == 15 ? stime : field == 39 ? pu : 7);
        Files.writeString(dir.resolve("stat"), f + "\n");
        return dir;
    }
}
