package io.qv4j.agent.cli.compare;

import io.qv4j.agent.cli.shared.JsonValues;
import io.qv4j.agent.report.JsonReader;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One run of the command in one arm. The command runs under {@code /bin/sh}, which waits for it
 * and then writes its {@code times}: the user and system time of its children, which the kernel
 * sums over every process of the tree that was waited for (a script's JVMs included) — a figure
 * Java cannot read once the processes are gone. The agent reaches each JVM through
 * {@code JAVA_TOOL_OPTIONS}, with a claims directory and a report per JVM ({@code %p}) in this
 * run's own directory. Output goes to files there: scanned for metrics, never shown.
 */
final class CompareRun {

    /** Runs "$@" after the file argument, then writes the shell's times there; exits with the command's status. */
    private static final String WRAPPER = "f=$1; shift; \"$@\"; c=$?; times > \"$f\"; exit $c";

    /** How much of a failed run's stderr the result keeps. */
    private static final int TAIL_LINES = 3;
    private static final int TAIL_CHARS = 300;

    private static final Pattern TIME = Pattern.compile("(\\d+)m([0-9.]+)s");

    private CompareRun() {
    }

    /**
     * Runs {@code command} once in {@code arm}, its files in {@code dir} (made here). The process
     * is started by {@code starter}, which keeps it (to kill its tree on Ctrl-C) or refuses, when
     * the comparison is ending: then null.
     */
    static Comparison.Run run(int round, int armIndex, Comparison.Arm arm, List<String> command, String jar, long timeoutSeconds,
                              List<Comparison.Metric> metrics, Path dir, Starter starter) throws IOException, InterruptedException {
        Files.createDirectories(dir.resolve("reports"));
        Path out = dir.resolve("stdout");
        Path err = dir.resolve("stderr");
        Path times = dir.resolve("times");
        List<String> cmd = new ArrayList<>(List.of("/bin/sh", "-c", WRAPPER, "qv-compare", times.toString()));
        cmd.addAll(command);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(new File("/dev/null"));
        if (arm.options() != null) pb.environment().put("JAVA_TOOL_OPTIONS", javaToolOptions(System.getenv("JAVA_TOOL_OPTIONS"), jar, arm.options(), dir));
        long t0 = System.nanoTime();
        Process p = starter.start(pb);
        if (p == null) return null;
        boolean ended = true;
        if (timeoutSeconds > 0) ended = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
        else p.waitFor();
        double wall = Math.round((System.nanoTime() - t0) / 1e6) / 1000.0;
        if (!ended) {
            killTree(p.toHandle());
            p.waitFor();
            return new Comparison.Run(round, armIndex, "timeout", -1, wall, null, Map.of(), null, null);
        }
        int exit = p.exitValue();
        Double cpu = Files.exists(times) ? childrenSeconds(Files.readString(times)) : null;
        List<Long> pinned = arm.options() == null || has(arm.options(), "report") ? null : pinned(dir.resolve("reports"));
        if (exit != 0) return new Comparison.Run(round, armIndex, "exit", exit, wall, cpu, Map.of(), pinned, tail(err));
        Map<String, Double> values = new LinkedHashMap<>();
        for (Comparison.Metric m : metrics) {
            Double v = lastMatch(m.regex(), out);
            Double e = lastMatch(m.regex(), err);
            if (v != null || e != null) values.put(m.name(), v != null ? v : e);
        }
        return new Comparison.Run(round, armIndex, "ok", 0, wall, cpu, values, pinned, null);
    }

    /** Starts a run's process, or returns null to refuse. */
    interface Starter {
        Process start(ProcessBuilder pb) throws IOException;
    }

    /**
     * The user's {@code JAVA_TOOL_OPTIONS} (kept) and the agent with the arm's options, a fresh
     * claims directory and a report per JVM, unless the options name their own.
     */
    static String javaToolOptions(String existing, String jar, String options, Path dir) {
        List<String> opts = new ArrayList<>();
        if (!options.isEmpty()) opts.add(options);
        if (!has(options, "claims-dir")) opts.add("claims-dir=" + dir.resolve("claims"));
        if (!has(options, "report")) opts.add("report=" + dir.resolve("reports").resolve("qv-%p.json"));
        String agent = "-javaagent:" + jar + "=" + String.join(",", opts);
        // the JVM splits JAVA_TOOL_OPTIONS at white space, except inside quotes
        if (agent.chars().anyMatch(Character::isWhitespace)) agent = "\"" + agent + "\"";
        return existing == null || existing.isBlank() ? agent : existing.strip() + " " + agent;
    }

    /** Whether the option string sets {@code key}. */
    static boolean has(String options, String key) {
        for (String kv : options.split(",")) if (kv.strip().startsWith(key + "=")) return true;
        return false;
    }

    /** The children's user plus system seconds from the second line of sh's {@code times}; null when unreadable. */
    static Double childrenSeconds(String times) {
        String[] lines = times.strip().split("\n");
        if (lines.length < 2) return null;
        Matcher m = TIME.matcher(lines[1]);
        double s = 0;
        int found = 0;
        while (m.find()) {
            s += Integer.parseInt(m.group(1)) * 60 + Double.parseDouble(m.group(2));
            found++;
        }
        return found == 2 ? Math.round(s * 1000) / 1000.0 : null;
    }

    /** Kills a process and all its descendants, found first: once the root is gone its children leave its tree. */
    static void killTree(ProcessHandle root) {
        List<ProcessHandle> all = root.descendants().toList();
        root.destroyForcibly();
        for (ProcessHandle h : all) h.destroyForcibly();
    }

    /** The number in the last line of {@code file} that {@code regex} finds: group 1, or the whole match; null when none. */
    static Double lastMatch(Pattern regex, Path file) throws IOException {
        Double last = null;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(Files.newInputStream(file), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                Double v = number(regex, line);
                if (v != null) last = v;
            }
        }
        return last;
    }

    /** The number {@code regex} finds in {@code line}; null when it finds none or what it finds is not a number. */
    static Double number(Pattern regex, String line) {
        Matcher m = regex.matcher(line);
        if (!m.find()) return null;
        String s = m.groupCount() > 0 ? m.group(1) : m.group();
        try {
            double v = s == null ? Double.NaN : Double.parseDouble(s.strip());
            return Double.isFinite(v) ? v : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Per report file (one per JVM, by pid; the agent writes each atomically), the threads the agent bound. */
    static List<Long> pinned(Path reports) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(reports)) {
            files = s.filter(f -> f.getFileName().toString().endsWith(".json")).sorted().toList();
        }
        List<Long> out = new ArrayList<>();
        for (Path f : files) {
            long bound = 0;
            for (Object pool : JsonValues.list(JsonValues.map(JsonReader.parse(Files.readString(f))).get("pools"))) {
                for (Object t : JsonValues.list(JsonValues.map(pool).get("threads"))) if (Boolean.TRUE.equals(JsonValues.map(t).get("bound"))) bound++;
            }
            out.add(bound);
        }
        return out;
    }

    /** The last few lines of a file, shortened. */
    private static String tail(Path file) throws IOException {
        Deque<String> last = new ArrayDeque<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(Files.newInputStream(file), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.isBlank() || line.startsWith("Picked up JAVA_TOOL_OPTIONS")) continue;
                last.addLast(line.strip());
                if (last.size() > TAIL_LINES) last.removeFirst();
            }
        }
        String s = String.join("\n", last);
        return s.length() > TAIL_CHARS ? s.substring(s.length() - TAIL_CHARS) : s;
    }

    /** Where {@code name} runs from: itself when it holds a slash, else the first match on PATH; null when it is no executable file. */
    static Path executable(String name, String path) {
        if (name.isEmpty()) return null;
        if (name.contains("/")) return Files.isRegularFile(Path.of(name)) && Files.isExecutable(Path.of(name)) ? Path.of(name) : null;
        for (String d : (path == null ? "" : path).split(":")) {
            Path p = Path.of(d.isEmpty() ? "." : d, name);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) return p;
        }
        return null;
    }
}
