package io.qv4j.agent.cli.plan;

import io.qv4j.agent.cli.shared.Args;
import io.qv4j.agent.cli.shared.UsageException;
import io.qv4j.agent.config.OptionException;
import io.qv4j.agent.config.Options;
import io.qv4j.agent.config.OptionsParser;
import io.qv4j.agent.config.PolicyWords;
import io.qv4j.agent.place.Oversubscription;
import io.qv4j.agent.report.Json;
import io.qv4j.api.Color;
import io.qv4j.api.PlacementSpec;
import io.qv4j.api.Scope;
import io.qv4j.api.Split;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Device;
import io.qv4j.topology.Topology;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code plan [--input FILE|SPEC | --fsroot DIR] [--options 'split-at=core,color=packed'] [--split N | --split-at TYPE]
 * [--color C] [--kind K] --tasks T}: what the agent would do with a pool of T workers, for humans and
 * scripts. The policy words are the agent's ({@link PolicyWords}); {@code --options} takes the
 * agent's option string itself, and the flags override it. Planned by {@link PlacementSpec#assign},
 * the split-and-map every placement goes through. Without an input it plans for the live machine.
 */
public final class PlanCommand {

    private PlanCommand() {
    }

    /**
     * A plan: the pieces, each task's assignment (an empty scope for a task that gets nothing), and
     * which tasks share the pool scope because their piece would be oversubscribed.
     */
    record Plan(Split split, List<Split.Assignment> tasks, boolean[] shared, CpuSet scope) {
    }

    public static void run(List<String> argv, PrintStream out) {
        Args args = Args.parse("plan", argv,
                Set.of("--input", "--fsroot", "--options", "--split", "--split-at", "--color", "--kind", "--tasks", "--format"), Set.of());
        String format = args.choice("--format", "text", "text", "json", "svg");
        args.oneOf("--split", "--split-at");
        Options options = options(args.get("--options"));
        PlacementSpec policy = policy(options.policy(), args.get("--split"), args.get("--split-at"), args.get("--color"), args.get("--kind"));
        int tasks = args.positiveInt("--tasks");
        Topology topology = TopologyCommand.load(args);
        Plan plan = plan(topology, policy, tasks, options.oversubscribe());
        if (format.equals("svg")) {
            out.print(svg(topology, plan, policy));
            return;
        }
        out.print(format.equals("json") ? Json.write(json(plan)) : text(topology, plan));
    }

    /** The agent's options from an option string (null: the defaults). */
    static Options options(String options) {
        try {
            return OptionsParser.parse(options, new Properties(), Map.of());
        } catch (OptionException e) {
            throw new UsageException("plan: --options: " + e.getMessage());
        }
    }

    /** The options' policy, then the flags (null: not given). */
    static PlacementSpec policy(PlacementSpec p, String split, String splitAt, String color, String kind) {
        try {
            if (split != null) p = PlacementSpec.split(PolicyWords.split(split)).color(p.color()).kindOf(p);
            if (splitAt != null) p = PlacementSpec.splitAt(PolicyWords.splitAt(splitAt)).color(p.color()).kindOf(p);
        } catch (IllegalArgumentException e) {
            throw new UsageException("plan: " + (split != null ? "--split '" + split : "--split-at '" + splitAt) + "' is not " + e.getMessage());
        }
        if (color != null) {
            try {
                Color c = PolicyWords.color(color);
                p = c != null ? p.color(c) : p.ordinal(PolicyWords.ordinal(color));
            } catch (IllegalArgumentException e) {
                throw new UsageException("plan: --color '" + color + "' is not " + e.getMessage());
            }
        }
        if (kind != null) {
            try {
                p = PolicyWords.kind(p, kind);
            } catch (IllegalArgumentException e) {
                throw new UsageException("plan: --kind '" + kind + "' is not " + e.getMessage());
            }
        }
        return p;
    }

    static Plan plan(Topology topology, PlacementSpec policy, int tasks, boolean oversubscribe) {
        Split s = policy.cut(Scope.of(topology));
        List<Split.Assignment> assigned = policy.assign(s, tasks);
        List<CpuSet> perTask = new ArrayList<>();
        CpuSet union = CpuSet.empty();
        for (Split.Assignment a : assigned) {
            CpuSet c = a.scope().map(Scope::cpuset).orElse(null);
            perTask.add(c);
            if (c != null) union = union.or(c);
        }
        boolean[] shared = oversubscribe ? new boolean[tasks] : Oversubscription.of(perTask);
        return new Plan(s, assigned, shared, union);
    }

    static Map<String, Object> json(Plan plan) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pieces", plan.split().pieces().stream().map(p -> p.cpuset().toString()).toList());
        List<Object> tasks = new ArrayList<>();
        for (int i = 0; i < plan.tasks().size(); i++) {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("task", i);
            Optional<Scope> piece = plan.tasks().get(i).scope();
            t.put("cpus", plan.shared()[i] ? plan.scope().toString() : piece.map(p -> p.cpuset().toString()).orElse(""));
            t.put("shared", plan.shared()[i]);
            t.put("devices", piece.map(p -> p.devices().stream().map(PlanCommand::deviceId).toList()).orElse(List.of()));
            tasks.add(t);
        }
        m.put("tasks", tasks);
        return m;
    }

    private static String deviceId(Device d) {
        return d.pci().isEmpty() ? d.name() : d.pci();
    }

    /** The machine as nested boxes with each task on its PUs (tasks that share the pool scope are listed, not drawn). */
    static String svg(Topology topology, Plan plan, PlacementSpec policy) {
        Map<Integer, List<Integer>> onPu = new HashMap<>();
        List<String> shared = new ArrayList<>();
        for (int i = 0; i < plan.tasks().size(); i++) {
            if (plan.shared()[i]) {
                shared.add("t" + i);
                continue;
            }
            final int task = i;
            plan.tasks().get(i).scope().ifPresent(p -> p.cpuset().stream().forEach(pu -> onPu.computeIfAbsent(pu, k -> new ArrayList<>()).add(task)));
        }
        String caption = "plan: " + policy + ", " + plan.tasks().size() + " tasks" + (shared.isEmpty() ? "" : "; sharing the pool scope " + plan.scope() + ": " + String.join(",", shared));
        return PlanSvg.draw(topology, pu -> {
            if (!topology.allowed().contains(pu)) return "x";
            List<Integer> ts = onPu.get(pu);
            return ts == null ? "" : "t" + String.join(",t", ts.stream().map(String::valueOf).toList());
        }, caption);
    }

    static String text(Topology topology, Plan plan) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-6s %-6s %-24s %s%n", "task", "piece", "cpus", "devices"));
        Map<Integer, Set<Integer>> tasksOnPu = new HashMap<>();
        for (int i = 0; i < plan.tasks().size(); i++) {
            Split.Assignment a = plan.tasks().get(i);
            Optional<Scope> piece = a.scope();
            String index = plan.shared()[i] ? "shared" : a.pieceCount() == 0 ? "-" : a.pieceCount() == 1 ? String.valueOf(a.firstPiece())
                    : a.firstPiece() + "-" + (a.firstPiece() + a.pieceCount() - 1);
            if (plan.shared()[i]) piece = Optional.empty();
            String devices = piece.map(p -> String.join(" ", p.devices().stream().map(Device::label).toList())).orElse("");
            String cpus = plan.shared()[i] ? plan.scope().toString() : piece.map(p -> p.cpuset().toString()).orElse("(none)");
            sb.append(String.format(Locale.ROOT, "%-6d %-6s %-24s %s%n", i, index, cpus, devices).stripTrailing()).append('\n');
            final int task = i;
            piece.ifPresent(p -> p.cpuset().stream().forEach(pu -> tasksOnPu.computeIfAbsent(pu, k -> new TreeSet<>()).add(task)));
        }
        sb.setLength(sb.length() - 1);
        sb.append('\n').append('\n').append("tasks on the machine (t<N> = task N, '.' = unused, x = not allowed):\n");
        sb.append(TopologyText.draw(topology, pu -> {
            if (!topology.allowed().contains(pu)) return pu + ":x";
            Set<Integer> ts = tasksOnPu.get(pu);
            return pu + ":" + (ts == null ? "." : "t" + String.join(",t", ts.stream().map(String::valueOf).toList()));
        }));
        return sb.toString();
    }
}
