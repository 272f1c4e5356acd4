package io.qv4j.agent.load;

import java.nio.file.Path;

/**
 * Readings of any process's threads and of every PU, under a {@code /proc} root, for a tool that
 * watches other JVMs ({@code status --watch}): each PU's ticks ({@code PROC/stat}) and a thread's
 * CPU time, last PU, migrations and time waiting on a run queue ({@code PROC/PID/task/TID/stat},
 * {@code sched}, {@code schedstat}). The same parsing as {@link LoadMeter}'s of this JVM; readings
 * only, the differences are the caller's. Not thread-safe: one per watch (it reuses one buffer).
 */
public final class TaskReader {

    private final String proc;
    private final ProcText text = new ProcText();

    /** Readings under {@code proc}: {@code /proc}, or a fake one in tests. */
    public TaskReader(Path proc) {
        this.proc = proc.toString();
    }

    /**
     * Each PU's {busy, all} ticks by OS index, busy being all but idle and iowait (steal included:
     * the PU was not free); null for a PU without a line; empty when {@code PROC/stat} cannot be read.
     */
    public long[][] puTicks() {
        if (!text.read(proc + "/stat")) return new long[0][];
        long[][] cpus = text.cpus();
        long[][] ticks = new long[cpus.length][];
        for (int pu = 0; pu < cpus.length; pu++) {
            long[] f = cpus[pu]; // user nice system idle iowait irq softirq steal
            if (f == null) continue;
            long all = 0;
            for (long v : f) all += v;
            ticks[pu] = new long[] {all - f[3] - f[4], all};
        }
        return ticks;
    }

    /**
     * Thread {@code tid} of process {@code pid}: {utime + stime in ticks, migrations (-1 unknown),
     * last PU, nanoseconds waited on a run queue (-1 unknown)}, or null when it is gone.
     */
    public long[] task(long pid, long tid) {
        String task = proc + "/" + pid + "/task/" + tid + "/";
        long[] stat = text.read(task + "stat") ? text.threadStat() : null;
        if (stat == null) return null;
        // sched needs a kernel built with CONFIG_SCHED_DEBUG: without it, moves are counted from the last PU
        long migrations = text.read(task + "sched") ? text.field("se.nr_migrations") : -1;
        long waited = -1;
        if (text.read(task + "schedstat")) {
            // on the CPU, waiting on a run queue (ns), time slices: the kernel's schedstats, on since 2.6.23
            text.number(0);
            waited = text.number(text.next);
        }
        return new long[] {stat[0], migrations, stat[1], waited};
    }
}
