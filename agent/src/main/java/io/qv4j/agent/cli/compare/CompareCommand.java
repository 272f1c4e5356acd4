package io.qv4j.agent.cli.compare;

import io.qv4j.agent.cli.shared.AgentJar;
import io.qv4j.agent.cli.shared.Args;
import io.qv4j.agent.cli.shared.Terminal;
import io.qv4j.agent.cli.shared.UsageException;
import io.qv4j.agent.report.JsonReader;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Stream;

/**
 * {@code compare [OPTIONS] -- COMMAND [ARGS...]}: runs the command without the agent, with its
 * defaults and with each {@code --options}, in alternating rounds after a warm-up, and judges each
 * arm against the no-agent one ({@link CompareStats}). {@code --from FILE} prints a saved JSON
 * result again, in any format.
 */
public final class CompareCommand {

    public static final int DEFAULT_RUNS = 5;
    private static final Pattern METRIC_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]*");
    private static final Set<String> RESERVED = Set.of(Comparison.WALL, Comparison.CPU, Comparison.PINNED);

    private CompareCommand() {
    }

    public static int run(List<String> argv, PrintStream out, PrintStream err) {
        int dash = argv.indexOf("--");
        Args args = Args.parse("compare", dash < 0 ? argv : argv.subList(0, dash),
                Set.of("--runs", "--timeout", "--options", "--metric", "--format", "--from"), Set.of(), true, Set.of("--options", "--metric"));
        if (!args.positional().isEmpty()) {
            throw new UsageException(dash < 0 ? "compare: give the command after --, as in: compare --runs 5 -- java -jar app.jar"
                    : "compare: '" + args.positional().get(0) + "' before --: options go before it, the command after it");
        }
        String format = args.choice("--format", "text", "text", "json", "svg");
        if (args.has("--from")) {
            if (dash >= 0 || args.has("--runs") || args.has("--timeout") || args.has("--options") || args.has("--metric")) {
                throw new UsageException("compare: --from FILE prints a saved result: give it alone, with --format");
            }
            out.print(render(read(Path.of(args.get("--from"))), format));
            return 0;
        }
        if (dash < 0) throw new UsageException("compare: give the command after --, as in: compare --runs 5 -- java -jar app.jar");
        List<String> command = List.copyOf(argv.subList(dash + 1, argv.size()));
        if (command.isEmpty() || command.get(0).isBlank()) throw new UsageException("compare: the command after -- is empty");
        if (CompareRun.executable(command.get(0), System.getenv("PATH")) == null) {
            throw new UsageException("compare: command not found: " + command.get(0) + " (no executable file of that name" + (command.get(0).contains("/") ? ")" : " on PATH)"));
        }
        int rounds = args.has("--runs") ? args.positiveInt("--runs") : DEFAULT_RUNS;
        long timeout = args.has("--timeout") ? args.positiveInt("--timeout") : 0;
        List<Comparison.Metric> metrics = new ArrayList<>();
        for (String m : args.all("--metric")) {
            Comparison.Metric metric = metric(m);
            if (metrics.stream().anyMatch(x -> x.name().equals(metric.name()))) throw new UsageException("compare: --metric " + metric.name() + " given twice");
            metrics.add(metric);
        }
        List<Comparison.Arm> arms = arms(args.all("--options"));
        String jar = AgentJar.path("compare");
        return new Rounds(command, arms, metrics, rounds, timeout, jar, format, out, err).run();
    }

    /** No agent, the agent's defaults, then one arm per {@code --options}, each checked as the agent would. */
    static List<Comparison.Arm> arms(List<String> options) {
        List<Comparison.Arm> arms = new ArrayList<>(List.of(new Comparison.Arm("no agent", null), new Comparison.Arm("defaults", "")));
        for (String o : options) {
            String s = o.strip();
            if (s.isEmpty()) throw new UsageException("compare: --options is empty (the agent's defaults are always an arm)");
            String bad = AgentJar.badOptions(s);
            if (bad != null) throw new UsageException("compare: --options " + s + ": " + bad);
            if (arms.stream().anyMatch(a -> s.equals(a.options()))) throw new UsageException("compare: --options " + s + " given twice");
            arms.add(new Comparison.Arm(s, s));
        }
        return arms;
    }

    /** {@code NAME=REGEX[:higher|:lower]}; higher is better unless told. */
    static Comparison.Metric metric(String spec) {
        int eq = spec.indexOf('=');
        String name = eq < 0 ? spec : spec.substring(0, eq);
        if (eq < 0 || !METRIC_NAME.matcher(name).matches()) {
            throw new UsageException("compare: --metric '" + spec + "' is not NAME=REGEX[:higher|:lower] (NAME: a letter, then letters, digits, _ . -)");
        }
        if (RESERVED.contains(name)) throw new UsageException("compare: --metric " + name + ": the name is taken (" + String.join(", ", RESERVED) + ")");
        String regex = spec.substring(eq + 1);
        boolean lower = false;
        if (regex.endsWith(":lower")) {
            lower = true;
            regex = regex.substring(0, regex.length() - ":lower".length());
        } else if (regex.endsWith(":higher")) {
            regex = regex.substring(0, regex.length() - ":higher".length());
        }
        if (regex.isEmpty()) throw new UsageException("compare: --metric " + name + ": the regex is empty");
        try {
            return new Comparison.Metric(name, Pattern.compile(regex), lower);
        } catch (PatternSyntaxException e) {
            throw new UsageException("compare: --metric " + name + ": the regex '" + regex + "' does not compile: " + e.getDescription()
                    + (e.getIndex() >= 0 ? " at index " + e.getIndex() : ""));
        }
    }

    static String render(Comparison c, String format) {
        return switch (format) {
            case "json" -> c.jsonText();
            case "svg" -> CompareSvg.draw(c);
            default -> c.text();
        };
    }

    private static Comparison read(Path f) {
        try {
            return Comparison.fromJson(JsonReader.parse(Files.readString(f)));
        } catch (IOException e) {
            throw new UsageException("compare: cannot read " + f + ": " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new UsageException("compare: " + f + " is not a saved compare result (--format json): " + e.getMessage());
        }
    }

    /** The metrics no run printed, by name. */
    static List<String> unprinted(List<Comparison.Metric> metrics, List<Comparison.Run> runs) {
        List<String> out = new ArrayList<>();
        for (Comparison.Metric m : metrics) if (runs.stream().noneMatch(r -> r.values().containsKey(m.name()))) out.add(m.name());
        return out;
    }

    /**
     * The rounds themselves: runs one at a time, shows progress on a terminal, and on Ctrl-C (a
     * shutdown hook) kills the running command's tree and prints what it has.
     */
    private static final class Rounds {
        private final List<String> command;
        private final List<Comparison.Arm> arms;
        private final List<Comparison.Metric> metrics;
        private final int rounds;
        private final long timeout;
        private final String jar;
        private final String format;
        private final PrintStream out;
        private final PrintStream err;
        private final boolean progress = Terminal.isTerminal(2);
        private final long t0 = System.nanoTime();

        /** Guards everything below: the hook and the rounds both use them. */
        private final Object lock = new Object();
        private final List<Comparison.Run> runs = new ArrayList<>();
        private Process current;
        private boolean ending;
        private Path tmp;

        Rounds(List<String> command, List<Comparison.Arm> arms, List<Comparison.Metric> metrics, int rounds, long timeout, String jar,
               String format, PrintStream out, PrintStream err) {
            this.command = command;
            this.arms = arms;
            this.metrics = metrics;
            this.rounds = rounds;
            this.timeout = timeout;
            this.jar = jar;
            this.format = format;
            this.out = out;
            this.err = err;
        }

        int run() {
            Thread hook = new Thread(this::interrupted, "qv-compare-interrupt");
            try {
                tmp = Files.createTempDirectory("qv-compare");
                Runtime.getRuntime().addShutdownHook(hook);
                int total = (rounds + 1) * arms.size();
                for (int round = 0; round <= rounds; round++) {
                    List<Integer> order = CompareStats.order(round, arms.size());
                    for (int i = 0; i < order.size(); i++) {
                        int a = order.get(i);
                        int done = round * arms.size() + i;
                        if (progress) progress(round, arms.get(a), done, total);
                        Comparison.Run r = CompareRun.run(round, a, arms.get(a), command, jar, timeout, metrics,
                                tmp.resolve(round + "-" + a), this::start);
                        synchronized (lock) {
                            if (r == null || ending) return 130;
                            current = null;
                            runs.add(r);
                        }
                        delete(tmp.resolve(round + "-" + a));
                    }
                    if (round == 0) unprintedAfterWarmUp();
                }
                List<String> missing = unprinted(metrics, runs);
                if (!missing.isEmpty()) throw new UsageException("compare: " + never(missing) + " in any of " + runs.size() + " runs");
                synchronized (lock) {
                    if (ending) return 130;
                    ending = true;
                }
                out.print(render(new Comparison(command, arms, metrics, rounds, runs, false), format));
                return 0;
            } catch (IOException e) {
                err.println("qv: compare: " + e.getMessage());
                return 1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 1;
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is running
                }
                if (progress) err.print("\r\033[K");
                delete(tmp);
            }
        }

        /** A typo in a metric shows in the warm-up: stop there rather than after every round. */
        private void unprintedAfterWarmUp() {
            if (runs.stream().noneMatch(r -> r.outcome().equals("ok"))) return;
            List<String> missing = unprinted(metrics, runs);
            if (!missing.isEmpty()) throw new UsageException("compare: " + never(missing) + " in the warm-up round");
        }

        private String never(List<String> missing) {
            List<String> each = new ArrayList<>();
            for (String name : missing) {
                Comparison.Metric m = metrics.stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
                each.add(name + " ('" + m.regex().pattern() + "')");
            }
            return "--metric " + String.join(", ", each) + (missing.size() == 1 ? " was" : " were") + " never printed";
        }

        private Process start(ProcessBuilder pb) throws IOException {
            synchronized (lock) {
                if (ending) return null;
                current = pb.start();
                return current;
            }
        }

        /** Ctrl-C: no new run, the current one's processes killed, and the result so far printed. */
        private void interrupted() {
            List<Comparison.Run> sofar;
            synchronized (lock) {
                if (ending) return;
                ending = true;
                if (current != null) CompareRun.killTree(current.toHandle());
                sofar = List.copyOf(runs);
            }
            if (progress) err.print("\r\033[K");
            out.print(render(new Comparison(command, arms, metrics, rounds, sofar, true), format));
            out.flush();
            delete(tmp);
        }

        private void progress(int round, Comparison.Arm arm, int done, int total) {
            long elapsed = (System.nanoTime() - t0) / 1_000_000_000L;
            String left = done == 0 ? "" : ", about " + clock(elapsed * (total - done) / done) + " left";
            err.print("\r\033[K" + (round == 0 ? "warm-up round" : "round " + round + " of " + rounds) + ", arm " + arm.name()
                    + ", " + clock(elapsed) + " elapsed" + left);
            err.flush();
        }

        private static String clock(long seconds) {
            return String.format(Locale.ROOT, "%d:%02d", seconds / 60, seconds % 60);
        }

        private static void delete(Path dir) {
            if (dir == null || !Files.exists(dir)) return;
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
            } catch (IOException | java.io.UncheckedIOException e) {
                // a temporary directory: the system cleans what is left
            }
        }
    }
}
