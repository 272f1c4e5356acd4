package io.qv4j.agent.cli.compare;

import io.qv4j.agent.cli.shared.JsonValues;
import io.qv4j.agent.report.Json;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What {@code compare} measured: the command, its arms and metrics, and every run; the summary
 * (each arm's spread of each figure, ratio and verdict against the no-agent arm) is derived, so a
 * result saved as JSON prints again the same ({@code --from}).
 *
 * @param command     the command line as given
 * @param arms        the no-agent arm first, then the agent's defaults, then one per {@code --options}
 * @param metrics     the user's figures
 * @param rounds      the counted rounds asked for (round 0, the warm-up, comes on top)
 * @param runs        every run so far, the warm-up's included, in the order they ran
 * @param interrupted true when Ctrl-C ended it before the last round
 */
record Comparison(List<String> command, List<Arm> arms, List<Metric> metrics, int rounds, List<Run> runs, boolean interrupted) {

    Comparison {
        command = List.copyOf(command);
        arms = List.copyOf(arms);
        metrics = List.copyOf(metrics);
        runs = List.copyOf(runs);
    }

    /** An arm: {@code options} null runs the command without the agent, {@code ""} with its defaults. */
    record Arm(String name, String options) {
    }

    /** {@code --metric NAME=REGEX[:higher|:lower]}: group 1 of the last matching line, or the whole match without a group. */
    record Metric(String name, Pattern regex, boolean lowerIsBetter) {
    }

    /**
     * One run of the command.
     *
     * @param round   0 for the warm-up (not counted), then 1..rounds
     * @param arm     the arm's index
     * @param outcome {@code ok}, {@code exit} (non-zero status) or {@code timeout} (killed): only ok counts
     * @param exit    the exit status (a shell's 128+N after signal N); -1 when killed on timeout
     * @param wall    seconds from start to exit, to the millisecond
     * @param cpu     user plus system seconds of the whole process tree that the command waited for; null when unknown
     * @param values  each metric the command printed
     * @param pinned  per JVM that wrote an agent report, the threads the agent bound; null without the agent
     * @param stderr  the last lines of a failed run's stderr; null for runs that went well
     */
    record Run(int round, int arm, String outcome, int exit, double wall, Double cpu, Map<String, Double> values,
               List<Long> pinned, String stderr) {

        Run {
            values = Map.copyOf(values);
            pinned = pinned == null ? null : List.copyOf(pinned);
        }

        boolean counted() {
            return round > 0 && outcome.equals("ok");
        }
    }

    /** A figure every arm is judged by; {@code lowerIsBetter} null for one that gets no verdict (pinned threads). */
    record Figure(String name, String title, Boolean lowerIsBetter) {

        /** This figure's value in a run, null when the run has none. */
        Double of(Run r) {
            return switch (name) {
                case "wall" -> r.wall();
                case "cpu" -> r.cpu();
                case "pinned" -> r.pinned() == null ? null : (double) r.pinned().stream().mapToLong(Long::longValue).sum();
                default -> r.values().get(name);
            };
        }
    }

    /** One arm's line for one figure. */
    record Line(Arm arm, CompareStats.Spread spread, Double ratio, String verdict) {
    }

    static final String WALL = "wall";
    static final String CPU = "cpu";
    static final String PINNED = "pinned";

    /** Wall and CPU time, the user's metrics, then the pinned threads. */
    List<Figure> figures() {
        List<Figure> out = new ArrayList<>();
        out.add(new Figure(WALL, "wall time, s (lower is better)", true));
        out.add(new Figure(CPU, "CPU time of the process tree, s (lower is better)", true));
        for (Metric m : metrics) out.add(new Figure(m.name(), m.name() + " (" + (m.lowerIsBetter() ? "lower" : "higher") + " is better)", m.lowerIsBetter()));
        out.add(new Figure(PINNED, "threads the agent pinned, all JVMs of a run", null));
        return out;
    }

    /** Each arm's spread of the figure over its counted runs, with ratio and verdict against the first arm. */
    List<Line> lines(Figure f) {
        List<CompareStats.Spread> spreads = new ArrayList<>();
        for (int a = 0; a < arms.size(); a++) spreads.add(CompareStats.spread(values(f, a)));
        List<Line> out = new ArrayList<>();
        for (int a = 0; a < arms.size(); a++) {
            boolean judged = a > 0 && f.lowerIsBetter() != null;
            out.add(new Line(arms.get(a), spreads.get(a), judged ? CompareStats.ratio(spreads.get(0), spreads.get(a)) : null,
                    judged ? CompareStats.verdict(spreads.get(0), spreads.get(a), f.lowerIsBetter()) : null));
        }
        return out;
    }

    /** The figure's values in arm {@code a}'s counted runs. */
    List<Double> values(Figure f, int a) {
        List<Double> out = new ArrayList<>();
        for (Run r : runs) {
            Double v = r.arm() == a && r.counted() ? f.of(r) : null;
            if (v != null) out.add(v);
        }
        return out;
    }

    String text() {
        StringBuilder sb = new StringBuilder();
        sb.append("compare: ").append(String.join(" ", command)).append('\n');
        sb.append(arms.size()).append(" arms, ").append(rounds).append(rounds == 1 ? " round" : " rounds").append(" after a warm-up, order alternating");
        if (interrupted) sb.append("; interrupted after ").append(runs.size()).append(" of ").append((rounds + 1) * arms.size()).append(" runs (the warm-up's included)");
        sb.append('\n');
        int width = "counted runs".length();
        for (Arm a : arms) width = Math.max(width, a.name().length() + 2);
        sb.append('\n').append(pad("", width)).append("   median      min      max   ratio  verdict").append('\n');
        for (Figure f : figures()) {
            sb.append(f.title()).append('\n');
            for (Line l : lines(f)) {
                sb.append(pad("  " + l.arm().name(), width));
                if (l.spread() == null) {
                    sb.append(String.format("%9s", "-"));
                } else {
                    sb.append(String.format("%9s%9s%9s", CompareStats.fmt(l.spread().median()), CompareStats.fmt(l.spread().min()), CompareStats.fmt(l.spread().max())));
                    if (l.ratio() != null) sb.append(String.format("%8s", CompareStats.fmt(l.ratio())));
                    else if (l.verdict() != null) sb.append(String.format("%8s", "-"));
                    if (l.verdict() != null) sb.append("  ").append(l.verdict());
                }
                sb.append('\n');
            }
        }
        sb.append("counted runs").append('\n');
        for (int a = 0; a < arms.size(); a++) {
            int counted = 0;
            int begun = 0;
            for (Run r : runs) {
                if (r.arm() != a || r.round() == 0) continue;
                begun++;
                if (r.counted()) counted++;
            }
            sb.append(pad("  " + arms.get(a).name(), width)).append(String.format("%9s", counted + " of " + begun)).append('\n');
        }
        for (Run r : runs) {
            if (r.outcome().equals("ok")) continue;
            sb.append("excluded: ").append(r.round() == 0 ? "warm-up" : "round " + r.round()).append(", ").append(arms.get(r.arm()).name()).append(": ")
                    .append(r.outcome().equals("timeout") ? "timed out after " + CompareStats.fmt(r.wall()) + " s, process tree killed" : "exit " + r.exit())
                    .append(r.stderr() == null || r.stderr().isEmpty() ? "" : " (" + r.stderr().replace('\n', ' ') + ")").append('\n');
        }
        return sb.toString();
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }

    /** The whole result as JSON: the inputs and every run (enough for {@link #fromJson}), and the summary text prints. */
    Map<String, Object> json() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("command", command);
        m.put("rounds", rounds);
        m.put("interrupted", interrupted);
        List<Object> as = new ArrayList<>();
        for (Arm a : arms) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("name", a.name());
            x.put("options", a.options());
            as.add(x);
        }
        m.put("arms", as);
        List<Object> ms = new ArrayList<>();
        for (Metric mt : metrics) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("name", mt.name());
            x.put("regex", mt.regex().pattern());
            x.put("better", mt.lowerIsBetter() ? "lower" : "higher");
            ms.add(x);
        }
        m.put("metrics", ms);
        List<Object> fs = new ArrayList<>();
        for (Figure f : figures()) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("name", f.name());
            x.put("better", f.lowerIsBetter() == null ? null : f.lowerIsBetter() ? "lower" : "higher");
            List<Object> ls = new ArrayList<>();
            for (Line l : lines(f)) {
                Map<String, Object> y = new LinkedHashMap<>();
                y.put("arm", l.arm().name());
                y.put("runs", l.spread() == null ? 0 : l.spread().n());
                y.put("median", l.spread() == null ? null : l.spread().median());
                y.put("min", l.spread() == null ? null : l.spread().min());
                y.put("max", l.spread() == null ? null : l.spread().max());
                y.put("ratio", l.ratio());
                y.put("verdict", l.verdict());
                ls.add(y);
            }
            x.put("arms", ls);
            fs.add(x);
        }
        m.put("figures", fs);
        List<Object> rs = new ArrayList<>();
        for (Run r : runs) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("round", r.round());
            x.put("arm", arms.get(r.arm()).name());
            x.put("outcome", r.outcome());
            x.put("exit", r.exit());
            x.put("wall", r.wall());
            x.put("cpu", r.cpu());
            Map<String, Object> vs = new LinkedHashMap<>();
            for (Metric mt : metrics) if (r.values().containsKey(mt.name())) vs.put(mt.name(), r.values().get(mt.name()));
            x.put("metrics", vs);
            x.put("pinned", r.pinned());
            x.put("stderr", r.stderr());
            rs.add(x);
        }
        m.put("runs", rs);
        return m;
    }

    String jsonText() {
        return Json.write(json());
    }

    /** A result read back from {@link #json()}: its summary is computed again from the runs. */
    static Comparison fromJson(Object parsed) {
        Map<String, Object> m = JsonValues.map(parsed);
        List<String> command = new ArrayList<>();
        for (Object o : JsonValues.list(m.get("command"))) command.add(String.valueOf(o));
        List<Arm> arms = new ArrayList<>();
        Map<String, Integer> armIndex = new LinkedHashMap<>();
        for (Object o : JsonValues.list(m.get("arms"))) {
            Map<String, Object> a = JsonValues.map(o);
            armIndex.put(String.valueOf(a.get("name")), arms.size());
            arms.add(new Arm(String.valueOf(a.get("name")), a.get("options") == null ? null : a.get("options").toString()));
        }
        List<Metric> metrics = new ArrayList<>();
        for (Object o : JsonValues.list(m.get("metrics"))) {
            Map<String, Object> x = JsonValues.map(o);
            metrics.add(new Metric(String.valueOf(x.get("name")), Pattern.compile(String.valueOf(x.get("regex"))), "lower".equals(x.get("better"))));
        }
        List<Run> runs = new ArrayList<>();
        for (Object o : JsonValues.list(m.get("runs"))) {
            Map<String, Object> x = JsonValues.map(o);
            Integer arm = armIndex.get(String.valueOf(x.get("arm")));
            if (arm == null) throw new IllegalArgumentException("a run of an arm not listed: " + x.get("arm"));
            Map<String, Double> values = new LinkedHashMap<>();
            JsonValues.map(x.get("metrics") == null ? Map.of() : x.get("metrics")).forEach((k, v) -> values.put(k, number(v)));
            List<Long> pinned = null;
            if (x.get("pinned") != null) {
                pinned = new ArrayList<>();
                for (Object p : JsonValues.list(x.get("pinned"))) pinned.add(number(p).longValue());
            }
            runs.add(new Run(number(x.get("round")).intValue(), arm, String.valueOf(x.get("outcome")), number(x.get("exit")).intValue(),
                    number(x.get("wall")), x.get("cpu") == null ? null : number(x.get("cpu")), values, pinned,
                    x.get("stderr") == null ? null : x.get("stderr").toString()));
        }
        return new Comparison(command, arms, metrics, number(m.get("rounds")).intValue(), runs, Boolean.TRUE.equals(m.get("interrupted")));
    }

    private static Double number(Object o) {
        if (o instanceof Number n) return n.doubleValue();
        throw new IllegalArgumentException("not a number where one belongs: " + o);
    }
}
