package io.qv4j.agent.cli.status;

import io.qv4j.agent.cli.shared.JsonValues;
import io.qv4j.agent.cli.shared.Targets;
import io.qv4j.agent.cli.shared.Terminal;
import io.qv4j.agent.load.PuLoad;
import io.qv4j.agent.load.TaskReader;
import io.qv4j.agent.node.Claims;
import io.qv4j.agent.platform.TopologyInput;
import io.qv4j.agent.report.Json;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code status [PID...] --watch [INTERVAL]}: the placement of running JVMs, refreshed every
 * INTERVAL seconds (default 1). Each refresh reads ({@link TaskReader}) every PU's load over the
 * interval from {@code /proc/stat}, each worker's PU, CPU time, migrations and time waiting for a
 * PU from {@code /proc/PID/task/TID} (no attach needed for those numbers; a PU on which a worker
 * waited {@link PuLoad#WAIT} of the interval or more is contended), and the agent's report through the
 * Attach API, and asks each agent to republish its report with the pools' counters (a
 * {@code watch-PID} file touched in its owner-only claims directory). On a terminal: a full-screen
 * view redrawn in place, {@code q} or Ctrl-C ends it and restores the terminal; through a pipe: the
 * same view as a plain table per refresh; {@code --format json}: one JSON line per refresh.
 * {@code --count N} stops after N. A named JVM that exits (or is killed, or left a zombie) leaves
 * the view with one line; when the last one has, the watch ends (exit 0) within a tenth of a second
 * or so: the wait between refreshes looks for it.
 */
final class StatusWatch {

    private final List<Long> pids; // the named JVMs still running
    private final boolean named;
    private final Reader reader;
    private final List<Long> gone = new ArrayList<>(); // named JVMs that ended since the last refresh
    private boolean started; // past the first refresh: an ended JVM is then said once, as gone
    private final double interval;
    private final boolean json;
    private final long count;
    private final PrintStream out;
    private final PrintStream err;
    private final Topology topology;
    private final Path proc;
    private final TaskReader tasks;
    private long[][] lastStat; // per PU: busy, all ticks
    private final Map<String, long[]> lastThread = new HashMap<>(); // pid/tid -> TaskReader.task's numbers, then when read (nanoTime)
    private final Map<String, double[]> lastPool = new HashMap<>(); // pid/pool id -> completed tasks, report time (ms), rate
    private final List<Path> touched = new ArrayList<>();
    private final Map<String, Claims> observers = new HashMap<>(); // claims directory -> an observer of it

    StatusWatch(List<Long> pids, boolean named, double interval, boolean json, long count, PrintStream out, PrintStream err) {
        this(pids, named, interval, json, count, out, err, TopologyInput.live(), Path.of("/proc"), StatusCommand::read);
    }

    /** How a JVM's status is read: {@link StatusCommand#read} (tests: canned statuses). */
    interface Reader {
        Map<String, Object> read(long pid) throws Targets.Refusal;
    }

    /**
     * On the machine {@code topology}, reading {@code PROC/stat} and {@code PROC/PID/...}, and each
     * JVM's status with {@code reader} (tests: a fake /proc and canned statuses).
     */
    StatusWatch(List<Long> pids, boolean named, double interval, boolean json, long count, PrintStream out, PrintStream err,
            Topology topology, Path proc, Reader reader) {
        this.topology = topology;
        this.proc = proc;
        this.tasks = new TaskReader(proc);
        this.reader = reader;
        this.pids = new ArrayList<>(pids);
        this.named = named;
        this.interval = interval;
        this.json = json;
        this.count = count;
        this.out = out;
        this.err = err;
    }

    /**
     * Runs until {@code q}, Ctrl-C, {@code --count} refreshes, the end of its output or the end of
     * every named JVM; the exit code (1 when none of them ran at the start).
     */
    int run() throws InterruptedException {
        Terminal term = !json && Terminal.isTerminal() ? Terminal.open() : null;
        try {
            if (term != null) out.print("\033[?25l\033[H\033[2J");
            Map<String, Object> first = view(); // the first interval's baseline: loads and CPU times are differences
            if (named && pids.isEmpty()) {
                if (first.get("gone") == null) return 1; // none ran at the start: each said why on its own line
                out.println(json ? oneLine(end(first)) : "qv: " + WatchText.goneLine(first.get("gone")) + "; nothing left to watch");
                return 0; // the last one ended while it was being read
            }
            for (long n = 0; count <= 0 || n < count; n++) {
                if (waitForQuit(term)) break;
                Map<String, Object> view = view();
                if (named && pids.isEmpty()) {
                    if (term != null) out.print("\033[?25h\033[H\033[2J");
                    out.println(json ? oneLine(end(view)) : "qv: " + WatchText.goneLine(view.get("gone")) + "; nothing left to watch");
                    break;
                }
                if (json) out.println(oneLine(view));
                else if (term != null) out.print("\033[H" + text(view, true).replace("\n", "\033[K\n") + "\033[J");
                else out.println(text(view, false));
                out.flush();
                if (out.checkError()) break; // the reader went away
            }
            return 0;
        } finally {
            for (Path p : touched) {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException | RuntimeException ignored) {
                    // the agent treats a stale request as none
                }
            }
            if (term != null) {
                out.print("\033[?25h\n");
                out.flush();
                term.close();
            }
        }
    }

    /**
     * Waits one interval in tenths of a second; true when {@code q} came. Ends the wait early when
     * every named JVM has ended, so that the watch ends about when the last one did.
     */
    private boolean waitForQuit(Terminal term) throws InterruptedException {
        long end = System.nanoTime() + (long) (interval * 1e9);
        for (long left; (left = (end - System.nanoTime()) / 1_000_000L) > 0;) {
            long slice = Math.min(100, left);
            if (term != null ? term.waitForQuit(slice) : sleepFor(slice)) return true;
            if (named && pids.stream().allMatch(pid -> Targets.ended(proc.resolve(Long.toString(pid))) != null)) return false;
        }
        return false;
    }

    private static boolean sleepFor(long millis) throws InterruptedException {
        Thread.sleep(millis);
        return false;
    }

    /** The final JSON line: when, and which JVMs ended at the last refresh. */
    private static Map<String, Object> end(Map<String, Object> view) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("time", view.get("time"));
        m.put("gone", view.get("gone"));
        m.put("end", "every process watched is gone");
        return m;
    }

    /** How long a JVM that could not be read may take to be gone before its refusal is said. */
    static final long ENDING_MILLIS = 300;

    /** {@link Targets#ended} of {@code pid}, looked at again for up to {@code millis}; null when it still runs. */
    private String endedWithin(long pid, long millis) {
        long end = System.nanoTime() + millis * 1_000_000;
        for (;;) {
            String ended = Targets.ended(proc.resolve(Long.toString(pid)));
            if (ended != null || System.nanoTime() > end) return ended;
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
    }

    /** How often a read in progress looks whether its JVM has ended. */
    static final long READ_POLL_MILLIS = 20;

    /**
     * {@code reader.read(pid)} on a thread of its own, given up (null) once the process has ended
     * meanwhile: attaching to a JVM that exits just after the look waits for its attach listener,
     * which is gone, for seconds (the Attach API signals again only halfway through its 10 s
     * timeout; a watch took 5.8 s to end in a rehearsal).
     */
    private Map<String, Object> readWhileRunning(long pid) throws Targets.Refusal {
        FutureTask<Map<String, Object>> read = new FutureTask<>(() -> reader.read(pid));
        Thread t = new Thread(read, "qv-watch-read");
        t.setDaemon(true);
        t.start();
        try {
            while (true) {
                try {
                    return read.get(READ_POLL_MILLIS, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    if (Targets.ended(proc.resolve(Long.toString(pid))) != null) {
                        read.cancel(true);
                        return null;
                    }
                }
            }
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Targets.Refusal r) throw r;
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error r) throw r;
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            read.cancel(true);
            return null;
        }
    }

    /** One refresh: every PU's load, and per JVM its pools with their workers as the kernel has them now. */
    Map<String, Object> view() {
        Map<Long, Map<String, Object>> statuses = new LinkedHashMap<>();
        for (long pid : named ? List.copyOf(pids) : Targets.jvms()) {
            // an ended JVM is not attached to: that could wait for its attach listener for seconds
            String ended = named ? Targets.ended(proc.resolve(Long.toString(pid))) : null;
            boolean endedReading = false;
            try {
                if (ended == null) {
                    Map<String, Object> status = readWhileRunning(pid);
                    if (status != null) {
                        statuses.put(pid, status);
                    } else if (named) {
                        ended = Targets.ended(proc.resolve(Long.toString(pid)));
                        endedReading = true;
                    }
                } else if (!started) {
                    err.println("qv: " + pid + ": " + ended);
                }
            } catch (Targets.Refusal r) {
                // a JVM that ends while it is read is gone, not refused, also at the first refresh
                // (its attach connection breaks as it exits: it is given a moment to be gone)
                ended = named ? endedWithin(pid, ENDING_MILLIS) : null;
                endedReading = ended != null;
                if (named && ended == null) err.println("qv: " + r.getMessage());
            }
            if (ended != null) {
                pids.remove(Long.valueOf(pid));
                if (started || endedReading) gone.add(pid);
            }
        }
        started = true;
        // the reports first: attaching takes a varying while, which must not fall inside the /proc readings' windows
        return view(statuses, System.nanoTime());
    }

    /**
     * The refresh of {@link #view()} from the JVMs' statuses as {@link StatusCommand#read} gives
     * them, by PID, and {@code /proc} read now; {@code nanos} ({@link System#nanoTime}) is now:
     * each worker's wait share is over the time since its last reading.
     */
    Map<String, Object> view(Map<Long, Map<String, Object>> statuses, long nanos) {
        long[][] stat = tasks.puTicks();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("time", System.currentTimeMillis());
        m.put("interval", interval);
        List<Object> pus = new ArrayList<>();
        for (int pu = 0; pu < stat.length; pu++) {
            if (stat[pu] == null) continue;
            long[] before = lastStat != null && pu < lastStat.length ? lastStat[pu] : null;
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("pu", pu);
            p.put("load", before == null || stat[pu][1] == before[1] ? null : round((double) (stat[pu][0] - before[0]) / (stat[pu][1] - before[1])));
            pus.add(p);
        }
        lastStat = stat;
        m.put("pus", pus);
        List<Object> jvms = new ArrayList<>();
        statuses.forEach((pid, j) -> jvms.add(jvm(pid, j, nanos)));
        m.put("jvms", jvms);
        m.put("contended", contended(jvms).toString());
        if (!gone.isEmpty()) m.put("gone", List.copyOf(gone));
        gone.clear();
        return m;
    }

    /** The PUs on which a worker of {@code jvms} (a view's) waited {@link PuLoad#WAIT} of the interval or more. */
    static CpuSet contended(List<Object> jvms) {
        BitSet b = new BitSet();
        for (Object j : jvms) {
            for (Object p : JsonValues.list(JsonValues.map(j).get("pools"))) {
                for (Object wo : JsonValues.list(JsonValues.map(p).get("workers"))) {
                    Map<String, Object> w = JsonValues.map(wo);
                    if (w.get("waited") instanceof Number x && x.doubleValue() >= PuLoad.WAIT && w.get("pu") instanceof Number pu) b.set(pu.intValue());
                }
            }
        }
        return CpuSet.of(b);
    }

    private Map<String, Object> jvm(long pid, Map<String, Object> j, long nanos) {
        Map<String, Object> report = j.get("report") == null ? Map.of() : JsonValues.map(j.get("report"));
        Map<String, Object> agent = JsonValues.map(report.get("agent"));
        askForCounters(pid, JsonValues.map(agent.get("node")));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pid", pid);
        m.put("command", j.get("command"));
        m.put("jvmScope", agent.get("jvmScope"));
        m.put("exclusive", agent.get("exclusive"));
        m.put("rest", agent.get("rest"));
        Map<String, Object> node = JsonValues.map(agent.get("node"));
        m.put("claimed", node.get("claimed"));
        m.put("othersClaim", othersClaim(node));
        m.put("memory", j.get("memory"));
        m.put("memoryAdvice", j.get("memoryAdvice"));
        List<Object> pools = new ArrayList<>();
        long at = report.get("time") instanceof Number n ? n.longValue() : System.currentTimeMillis();
        for (Object o : JsonValues.list(report.get("pools"))) {
            Map<String, Object> p = JsonValues.map(o);
            if (!Boolean.TRUE.equals(p.get("pinned"))) continue;
            Map<String, Object> pool = new LinkedHashMap<>();
            pool.put("name", p.get("name"));
            pool.put("tasks", p.get("tasks"));
            pool.put("exclusive", Boolean.TRUE.equals(p.get("exclusive")));
            Object done = p.get("completedTasks");
            pool.put("completedTasks", done);
            String key = pid + "/" + p.get("id");
            Double rate = null;
            if (done instanceof Number d) {
                // over the agent's own report times: a report not yet republished keeps the last rate
                double[] before = lastPool.get(key);
                if (before != null && at > before[1]) rate = round((d.doubleValue() - before[0]) * 1000 / (at - before[1]));
                else if (before != null && !Double.isNaN(before[2])) rate = before[2];
                if (before == null || at > before[1]) lastPool.put(key, new double[] {d.doubleValue(), at, rate == null ? Double.NaN : rate});
            }
            pool.put("tasksPerSecond", rate);
            List<Object> workers = new ArrayList<>();
            for (Object to : JsonValues.list(p.get("threads"))) {
                Map<String, Object> t = JsonValues.map(to);
                if (Boolean.TRUE.equals(t.get("exited")) || !(t.get("tid") instanceof Number tid)) continue;
                workers.add(worker(pid, tid.longValue(), t, nanos));
            }
            pool.put("workers", workers);
            pools.add(pool);
        }
        m.put("pools", pools);
        return m;
    }

    private Map<String, Object> worker(long pid, long tid, Map<String, Object> t, long nanos) {
        Map<String, Object> w = new LinkedHashMap<>();
        w.put("name", t.get("name"));
        w.put("tid", tid);
        w.put("planned", t.get("cpuset"));
        w.put("cpus", t.get("kernel"));
        long[] now = tasks.task(pid, tid);
        w.put("pu", now == null ? null : now[2]);
        long[] before = lastThread.get(pid + "/" + tid);
        w.put("load", now == null || before == null ? null : round((now[0] - before[0]) / (100.0 * interval)));
        w.put("migrations", now == null || before == null ? null : now[1] >= 0 ? now[1] - before[1] : (now[2] != before[2] ? 1 : 0));
        w.put("waited", now == null ? null : waited(before, now, nanos));
        if (now != null) {
            long[] seen = Arrays.copyOf(now, now.length + 1);
            seen[now.length] = nanos;
            lastThread.put(pid + "/" + tid, seen);
        }
        return w;
    }

    /**
     * The share of the time from the reading {@code before} ({@link TaskReader#task}'s numbers, then when it was
     * taken) to {@code nanos} that the thread waited on a run queue, 0 to 1 (schedstat's second
     * field counts nanoseconds), to 0.001 as the agent's report has it (so that 0.199 is not taken
     * for {@link PuLoad#WAIT}); null without an earlier reading, a wait time or any time between.
     */
    static Double waited(long[] before, long[] now, long nanos) {
        if (before == null || before[3] < 0 || now[3] < before[3] || nanos <= before[4]) return null;
        return Math.round(Math.min(1.0, (now[3] - before[3]) / (double) (nanos - before[4])) * 1000) / 1000.0;
    }

    /** Touches {@code watch-PID} in the JVM's claims directory (owner-only; a link there is not followed). */
    private void askForCounters(long pid, Map<String, Object> node) {
        Object dir = node.get("claimsDir");
        if (dir == null) return;
        Path f = Path.of(dir.toString(), "watch-" + pid);
        try (SeekableByteChannel c = Files.newByteChannel(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            Files.setLastModifiedTime(f, FileTime.fromMillis(System.currentTimeMillis()));
            if (!touched.contains(f)) touched.add(f);
        } catch (IOException | RuntimeException e) {
            // no counters for this JVM: the rest of the view stands
        }
    }

    /**
     * The PUs other processes claim in this JVM's claims directory (and OpenHFT's lock files), as
     * a cpulist: everything claimed there but what the JVM itself holds; null without claims.
     */
    private String othersClaim(Map<String, Object> node) {
        Object dir = node.get("claimsDir");
        if (dir == null) return null;
        Claims c = observers.computeIfAbsent(dir.toString(), d -> Claims.open(Path.of(d), false));
        CpuSet all = c.others(topology.online());
        for (String mine : new String[] {WatchText.str(node.get("claimed")), WatchText.str(node.get("openhftHeld"))}) {
            if (!mine.equals("-") && !mine.isEmpty()) all = all.andNot(CpuSet.parse(mine));
        }
        return all.toString();
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }

    static String oneLine(Map<String, Object> m) {
        return Json.write(m).strip().replaceAll("\\s*\\n\\s*", " ");
    }

    /** The view as text ({@link WatchText}). */
    String text(Map<String, Object> view, boolean colour) {
        return WatchText.draw(topology, interval, view, colour);
    }
}
