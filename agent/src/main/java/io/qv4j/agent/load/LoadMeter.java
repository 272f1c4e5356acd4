package io.qv4j.agent.load;

import io.qv4j.agent.config.PolicyWords;
import io.qv4j.agent.log.Log;

import java.io.File;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Readings of {@code /proc}: each PU's busy and total time ({@code /proc/stat}, host-wide even in a
 * container, in clock ticks), each of this JVM's threads' CPU time and the PU it last ran on
 * ({@code /proc/self/task/TID/stat}) and the whole JVM's ({@code /proc/self/stat}, which keeps the
 * time of threads that ended), and for the threads asked, how long they waited on a run
 * queue ({@code /proc/self/task/TID/schedstat}, nanoseconds). Two readings make a {@link PuLoad}:
 * what ran on each PU that is not this JVM's, and each asked thread's wait.
 *
 * <p>Views for planning start from the last reading at least {@link #MIN_WINDOW_NANOS} old: the
 * first is taken as the agent starts, later ones by the {@code qv-neighbours} watcher
 * ({@link #offer}), so a pool planned while workers are watched sees the last second or so.
 * Thread-safe (one reading at a time: they share a buffer).
 */
public final class LoadMeter {

    /** A window shorter than this is mostly rounding (a tick is 10 ms): views reach further back. */
    static final long MIN_WINDOW_NANOS = 200_000_000L;
    /**
     * A planning view this young is given again: an application that makes pools in a burst (a
     * thousand a second) reads {@code /proc} once, not per pool; views span 200 ms and more.
     */
    static final long REUSE_NANOS = 100_000_000L;
    /** Threads read per reading: a JVM of thousands of threads pays for the first thousand only. */
    static final int MAX_THREADS = 1024;

    /**
     * One reading.
     *
     * @param nanos   when ({@link System#nanoTime})
     * @param busy    each PU's busy ticks, by OS index (user, nice, system, irq, softirq; not steal: the
     *                hypervisor's, and it accrues where this JVM's own worker wants the PU)
     * @param all     each PU's ticks, idle, iowait and steal included
     * @param threads this JVM's threads by tid: {ticks, last PU, run ns, wait ns} (the last two -1 unless asked)
     * @param own     this JVM's CPU ticks, every thread it ever had included ({@code /proc/self/stat}); -1 when unread
     */
    public record Sample(long nanos, long[] busy, long[] all, Map<Long, long[]> threads, long own) {
    }

    private final String proc;
    private final ProcText text = new ProcText();
    private Sample older;
    private Sample newer;
    private PuLoad view;
    private long viewNanos;

    /** Readings of the live machine. */
    public LoadMeter() {
        this("/proc");
    }

    /** Readings under another root (tests): {@code ROOT/stat}, {@code ROOT/self/task/...}. */
    public LoadMeter(String proc) {
        this.proc = proc;
    }

    /** Whether this machine has the files: false where there is no {@code /proc/stat} or schedstat. */
    public boolean works() {
        return new File(proc + "/stat").canRead() && new File(proc + "/self/schedstat").canRead();
    }

    /** The first reading, taken as the agent starts. */
    public synchronized void start() {
        offer(sample(null));
    }

    /**
     * A meter of the live machine with its first reading taken, or null where {@code /proc} has
     * not what it needs (said under {@code verbose}). Called first thing at start-up, so that the
     * first pool's plan sees the tens of milliseconds the agent takes to get ready.
     */
    public static LoadMeter started() {
        LoadMeter m = new LoadMeter();
        if (!m.works()) {
            Log.debug("neighbours: /proc/stat or the threads' schedstat cannot be read here: plans do not see other processes' load");
            return null;
        }
        m.start();
        return m;
    }

    /** A reading the watcher took: later planning views start from it. */
    public synchronized void offer(Sample s) {
        if (s == null) return;
        if (newer == null || s.nanos() - newer.nanos() >= MIN_WINDOW_NANOS) {
            older = newer;
            newer = s;
        }
    }

    /**
     * What ran on each PU lately, for planning: from the last reading at least
     * {@link #MIN_WINDOW_NANOS} old (else the one before) to now; the last view again within
     * {@link #REUSE_NANOS} of it. Null when nothing can be read.
     */
    public synchronized PuLoad recent() {
        if (view != null && System.nanoTime() - viewNanos < REUSE_NANOS) return view;
        Sample now = sample(null);
        if (now == null) return null;
        Sample from = newer != null && now.nanos() - newer.nanos() >= MIN_WINDOW_NANOS || older == null ? newer : older;
        offer(now);
        view = from == null ? null : PuLoad.between(from, now);
        viewNanos = now.nanos();
        return view;
    }

    /**
     * A reading, with the run and wait times of the threads {@code waitTids} (null: none); null when
     * {@code /proc/stat} cannot be read. Each thread's {@code stat} costs the kernel some 10 µs
     * (a path walk and {@code do_task_stat}): 8 ms a reading in a JVM of 500 threads. So the threads
     * that did not run since the last reading keep their figures unread, unless the JVM's own time
     * since then ({@code /proc/self/stat}, exact) exceeds what the threads read account for by more
     * than {@value #UNEXPLAINED_TICKS} tick, or every thread was last read a second ago or more:
     * then they are all read. A thread so runs unseen only while it runs under a tick a reading,
     * for a second at most, and what it runs is in the JVM's exact total, which bounds others' load
     * ({@link PuLoad#between}): it can only move that little from one PU's share to another's.
     */
    public synchronized Sample sample(long[] waitTids) {
        long nanos = System.nanoTime();
        if (!text.read(proc + "/stat")) return null;
        long[][] cpus = cpuLines();
        Map<Long, long[]> threads = new HashMap<>();
        Map<Long, long[]> before = last == null || last.own() < 0 ? Map.of() : last.threads();
        Set<Long> asked = new HashSet<>();
        if (waitTids != null) for (long tid : waitTids) asked.add(tid);
        List<Long> unread = new ArrayList<>();
        long explained = 0;
        String[] tids = new File(proc + "/self/task").list();
        if (tids != null) {
            for (int i = 0; i < tids.length && i < MAX_THREADS; i++) {
                long tid = PolicyWords.digits(tids[i]);
                if (tid <= 0) continue;
                long[] was = before.get(tid);
                if (was != null && !ran.contains(tid) && !asked.contains(tid)) {
                    unread.add(tid);
                    continue;
                }
                long[] t = thread(tid);
                if (t == null) continue;
                threads.put(tid, t);
                explained += t[0] - (was == null ? 0 : was[0]);
            }
        }
        long[] self = text.read(proc + "/self/stat") ? text.threadStat() : null;
        long own = self == null ? -1 : self[0];
        boolean readAll = own < 0 || last == null || own - last.own() - explained > UNEXPLAINED_TICKS || nanos - allRead >= ALL_READ_NANOS;
        if (readAll) allRead = nanos;
        for (long tid : unread) {
            long[] t = readAll ? thread(tid) : before.get(tid);
            if (t != null) threads.put(tid, readAll ? t : new long[] {t[0], t[1], -1, -1});
        }
        Set<Long> running = new HashSet<>();
        for (Map.Entry<Long, long[]> t : threads.entrySet()) {
            long[] was = before.get(t.getKey());
            if (was == null || was[0] != t.getValue()[0]) running.add(t.getKey());
        }
        ran = running;
        if (waitTids != null) {
            for (long tid : waitTids) {
                long[] t = threads.get(tid);
                if (t != null && text.read(proc + "/self/task/" + tid + "/schedstat")) {
                    t[2] = text.number(0);
                    t[3] = text.number(text.next);
                }
            }
        }
        last = new Sample(nanos, cpus[0], cpus[1], threads, own);
        return last;
    }

    /** The JVM's own ticks a reading may leave unaccounted for and still keep the figures of threads that did not run. */
    static final long UNEXPLAINED_TICKS = 1;
    /** Every thread is read at least this often: one that runs under a tick a reading is seen again. */
    static final long ALL_READ_NANOS = 1_000_000_000L;

    private Sample last;                    // the latest reading
    private Set<Long> ran = new HashSet<>(); // the threads whose time grew in it, or that were new
    private long allRead;                   // when every thread was last read (nanoTime)

    /** Thread {@code tid}'s time waiting on a run queue so far, in nanoseconds ({@code schedstat}); -1 when it cannot be read. */
    public synchronized long waitedNanos(long tid) {
        if (!text.read(proc + "/self/task/" + tid + "/schedstat")) return -1;
        text.number(0);
        return text.number(text.next);
    }

    /** The {@code cpuN} lines of {@code /proc/stat} in the buffer: busy and all ticks by N (0 for an N without a line). */
    private long[][] cpuLines() {
        long[][] lines = text.cpus();
        long[] busy = new long[lines.length];
        long[] all = new long[lines.length];
        for (int cpu = 0; cpu < lines.length; cpu++) {
            long[] f = lines[cpu]; // user nice system idle iowait irq softirq steal
            if (f == null) continue;
            busy[cpu] = f[0] + f[1] + f[2] + f[5] + f[6];
            all[cpu] = busy[cpu] + f[3] + f[4] + f[7];
        }
        return new long[][] {busy, all};
    }

    /** {ticks, last PU, -1, -1} of this JVM's thread {@code tid}, or null when it ended. */
    private long[] thread(long tid) {
        return text.read(proc + "/self/task/" + tid + "/stat") ? text.threadStat() : null;
    }
}
