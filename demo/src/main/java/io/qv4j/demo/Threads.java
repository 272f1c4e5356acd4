package io.qv4j.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The kernel's view of the demo's threads, shared by every workload: which threads ran work
 * ({@link #seen()}), and for each its tid, {@code Cpus_allowed_list} ({@code /proc/self/task/TID/status}),
 * the CPU it last ran on ({@code stat} field 39) and {@code se.nr_migrations} ({@code sched}); the
 * table and the map of the machine drawn from them; percentiles; the small argument parser; the
 * result lines ({@code --out FILE} appends them tab-separated for the scripts).
 *
 * <p>Nothing here assumes pinning happened: a thread counts as pinned only when the kernel says
 * its cpuset is narrower than the JVM's (the main thread's at start).
 */
public final class Threads {

    /** One thread as the kernel sees it; {@code migrationsSinceSeen} counts from its first task. */
    public record Row(String name, int tid, String allowed, int lastCpu, long migrations, long migrationsSinceSeen) {
        /** True when the kernel lets this thread run on fewer CPUs than the JVM. */
        public boolean pinned() {
            return !allowed.equals(JVM_ALLOWED);
        }
    }

    /** The JVM's cpuset: the main thread's {@code Cpus_allowed_list} when this class loads. */
    public static final String JVM_ALLOWED = field(Path.of("/proc/self/status"), "Cpus_allowed_list");

    private static final Map<Integer, String> NAMES = new ConcurrentHashMap<>();
    private static final Map<Integer, Long> FIRST_MIGRATIONS = new ConcurrentHashMap<>();
    private static final ThreadLocal<int[]> TID = new ThreadLocal<>();

    private Threads() {
    }

    /** This thread's kernel tid, from the {@code /proc/thread-self} link. */
    public static int tid() {
        try {
            return Integer.parseInt(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Called from work: remembers the calling thread for the table (cheap after the first call). */
    public static void seen() {
        if (TID.get() != null) return;
        int tid = tid();
        TID.set(new int[] {tid});
        FIRST_MIGRATIONS.put(tid, migrations(tid));
        NAMES.put(tid, Thread.currentThread().getName());
    }

    /** The threads that called {@link #seen()} and are still alive, read from the kernel now, by name. */
    public static List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (Map.Entry<Integer, String> e : NAMES.entrySet()) {
            Row r = read(e.getKey(), e.getValue());
            if (r != null) rows.add(r);
        }
        rows.sort(Comparator.comparing(Row::name, Threads::naturalOrder).thenComparingInt(Row::tid));
        return rows;
    }

    /** One thread of this process, or null when it has exited. */
    public static Row read(int tid, String name) {
        Path dir = Path.of("/proc/self/task/" + tid);
        if (!Files.isDirectory(dir)) return null;
        String allowed = field(dir.resolve("status"), "Cpus_allowed_list");
        long migrations = migrations(tid);
        long first = FIRST_MIGRATIONS.getOrDefault(tid, 0L);
        return new Row(name, tid, allowed, lastCpu(dir), migrations, migrations < 0 ? -1 : migrations - first);
    }

    private static long migrations(int tid) {
        String v = field(Path.of("/proc/self/task/" + tid + "/sched"), "se.nr_migrations");
        return v.equals("?") ? -1 : Long.parseLong(v);
    }

    /** Field 39 of {@code stat} ("processor"): the comm field may hold spaces, so count after its ')'. */
    private static int lastCpu(Path dir) {
        try {
            String stat = Files.readString(dir.resolve("stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" +");
            return Integer.parseInt(f[39 - 3]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The value after {@code KEY:} in a {@code /proc} file, or "?". */
    public static String field(Path file, String key) {
        try {
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith(key) && line.length() > key.length()) {
                    String rest = line.substring(key.length()).strip();
                    if (rest.startsWith(":")) return rest.substring(1).strip();
                }
            }
        } catch (IOException e) {
            return "?";
        }
        return "?";
    }

    /** A thread factory naming its threads {@code prefix-0, prefix-1, ...}. */
    public static ThreadFactory named(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.getAndIncrement());
            t.setDaemon(true);
            return t;
        };
    }

    // ---- numbers ----

    /** Nearest-rank percentile of a sorted array ({@code p} in 0..100). */
    public static long percentile(long[] sorted, int count, double p) {
        if (count == 0) return 0;
        int rank = (int) Math.ceil(p / 100.0 * count);
        return sorted[Math.max(0, Math.min(count - 1, rank - 1))];
    }

    public static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n == 0 ? 0 : (n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
    }

    /** Expands a Linux cpulist ({@code 0-3,8}) into CPU numbers. */
    public static List<Integer> cpulist(String list) {
        List<Integer> cpus = new ArrayList<>();
        if (list == null || list.isBlank() || list.equals("?")) return cpus;
        for (String part : list.strip().split(",")) {
            int dash = part.indexOf('-');
            int lo = Integer.parseInt(dash < 0 ? part : part.substring(0, dash));
            int hi = dash < 0 ? lo : Integer.parseInt(part.substring(dash + 1));
            for (int c = lo; c <= hi; c++) cpus.add(c);
        }
        return cpus;
    }

    // ---- arguments ----

    /** True when {@code flag} is among the arguments. */
    public static boolean flag(String[] args, String flag) {
        return Arrays.asList(args).contains(flag);
    }

    /** The value after {@code --key} (or {@code --key=value}), else {@code dflt}. */
    public static String opt(String[] args, String key, String dflt) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals(key) && i + 1 < args.length) return args[i + 1];
            if (args[i].startsWith(key + "=")) return args[i].substring(key.length() + 1);
        }
        return dflt;
    }

    /** How this run was set up, for the result line: {@code --label}, else openhft/agent/taskset/none. */
    public static String label(String[] args) {
        String l = opt(args, "--label", null);
        if (l != null) return l;
        if (flag(args, "--openhft")) return "openhft";
        for (String a : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("-javaagent:")) return "agent";
        }
        return JVM_ALLOWED.equals(online()) ? "none" : "taskset";
    }

    private static String online() {
        try {
            return Files.readString(Path.of("/sys/devices/system/cpu/online")).strip();
        } catch (IOException e) {
            return "?";
        }
    }

    // ---- output ----

    /** A workload's result: a headline, metrics, then the kernel's table and map. */
    public static final class Result {
        private final String workload;
        private final String label;
        private final StringBuilder tsv = new StringBuilder();
        private final List<String> metrics = new ArrayList<>();
        private final Path out;

        public Result(String workload, String[] args) {
            this.workload = workload;
            this.label = label(args);
            String o = opt(args, "--out", null);
            this.out = o == null ? null : Path.of(o);
            tsv.append("run\t").append(workload).append('\t').append(label).append('\n');
        }

        /** A number; {@code better} is "lower" or "higher". */
        public Result metric(String name, double value, String unit, String better) {
            metrics.add(String.format(Locale.ROOT, "%s %s %s", name, fmt(value), unit));
            tsv.append(String.format(Locale.ROOT, "metric\t%s\t%.6g\t%s\t%s%n", name, value, unit, better));
            return this;
        }

        /** A fact for the headline (not compared). */
        public Result note(String text) {
            metrics.add(text);
            tsv.append("note\t").append(text).append('\n');
            return this;
        }

        /** Prints the headline, the table and the map; appends everything to {@code --out}. */
        public void print(List<Row> rows, PrintStream ps) {
            ps.printf("%s [%s]: %s%n", workload, label, String.join(", ", metrics));
            table(rows, ps);
            map(rows, ps);
            long pinned = rows.stream().filter(Row::pinned).count();
            ps.printf("kernel: %s%n", pinned == 0
                    ? "no thread is pinned: every one may run on the JVM's CPUs " + JVM_ALLOWED
                    : pinned + " of " + rows.size() + " threads have a cpuset narrower than the JVM's (" + JVM_ALLOWED + ")");
            for (Row r : rows) {
                tsv.append(String.format(Locale.ROOT, "thread\t%s\t%d\t%s\t%d\t%d\t%d\t%s%n", r.name(), r.tid(), r.allowed(),
                        r.lastCpu(), r.migrationsSinceSeen(), r.migrations(), r.pinned() ? "pinned" : "free"));
            }
            if (out != null) {
                try {
                    Files.writeString(out, tsv, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }

    static String fmt(double v) {
        if (v >= 100 || v == Math.rint(v) && Math.abs(v) < 1e15) return String.format(Locale.ROOT, "%.0f", v);
        return String.format(Locale.ROOT, v >= 10 ? "%.1f" : "%.2f", v);
    }

    /** The per-thread table. */
    public static void table(List<Row> rows, PrintStream ps) {
        int w = 6;
        for (Row r : rows) w = Math.max(w, r.name().length());
        String head = "  %-" + w + "s %7s  %-10s %8s  %s%n";
        String line = "  %-" + w + "s %7d  %-10s %8d  %d / %d%n";
        ps.printf(head, "thread", "tid", "allowed", "last-cpu", "migrations (since 1st task / total)");
        for (Row r : rows) {
            ps.printf(line, r.name(), r.tid(), r.allowed() + (r.pinned() ? "" : "*"),
                    r.lastCpu(), r.migrationsSinceSeen(), r.migrations());
        }
        ps.println("  (* = the JVM's whole cpuset: not pinned)");
    }

    /** The machine (packages, cores, PUs from sysfs) with each thread on the PU it last ran on. */
    public static void map(List<Row> rows, PrintStream ps) {
        // package -> core -> PUs, from sysfs topology ids
        Map<Integer, Map<Integer, List<Integer>>> machine = new TreeMap<>();
        for (int cpu : cpulist(online())) {
            Path t = Path.of("/sys/devices/system/cpu/cpu" + cpu + "/topology");
            int pkg = intFile(t.resolve("physical_package_id"));
            int core = intFile(t.resolve("core_id"));
            machine.computeIfAbsent(pkg, k -> new TreeMap<>()).computeIfAbsent(core, k -> new ArrayList<>()).add(cpu);
        }
        ps.println("  where each thread last ran (= pinned to exactly this PU, + a narrower cpuset, ~ free):");
        for (Map.Entry<Integer, Map<Integer, List<Integer>>> p : machine.entrySet()) {
            ps.printf("  package %d%n", p.getKey());
            for (Map.Entry<Integer, List<Integer>> c : p.getValue().entrySet()) {
                for (int pu : c.getValue()) {
                    StringBuilder names = new StringBuilder();
                    for (Row r : rows) {
                        if (r.lastCpu() != pu) continue;
                        String mark = !r.pinned() ? "~" : r.allowed().equals(Integer.toString(pu)) ? "=" : "+";
                        names.append(' ').append(mark).append(r.name());
                    }
                    ps.printf("    core %-3d PU %-3d|%s%n", c.getKey(), pu, names.length() == 0 ? " -" : names);
                }
            }
        }
    }

    private static int intFile(Path p) {
        try {
            return Integer.parseInt(Files.readString(p).strip());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /** "worker-10" after "worker-9". */
    static int naturalOrder(String a, String b) {
        int i = a.length(), j = b.length();
        while (i > 0 && Character.isDigit(a.charAt(i - 1))) i--;
        while (j > 0 && Character.isDigit(b.charAt(j - 1))) j--;
        int c = a.substring(0, i).compareTo(b.substring(0, j));
        if (c != 0 || i == a.length() || j == b.length()) return c != 0 ? c : a.compareTo(b);
        return Long.compare(Long.parseLong(a.substring(i)), Long.parseLong(b.substring(j)));
    }
}
