package io.qv4j.agent.cli;

import io.qv4j.agent.report.Json;
import io.qv4j.api.Color;
import io.qv4j.topology.HwType;
import io.qv4j.api.Scope;
import io.qv4j.api.Split;
import io.qv4j.topology.Device;
import io.qv4j.topology.Topology;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code plan [--input FILE|SPEC | --fsroot DIR] (--split N | --split-at TYPE) --color C --tasks T}:
 * the split engine for humans and scripts, the same code path the agent uses for a pool. Without
 * an input it plans for the live machine.
 */
final class PlanCommand {

    private static final List<String> SPLIT_AT_TYPES = List.of("package", "numa", "l3", "l2", "core", "pu", "gpu", "nic");

    private PlanCommand() {
    }

    /** A plan: the pieces and each task's assignment (an empty scope for a task that gets nothing). */
    record Plan(Split split, List<Split.Assignment> tasks) {
    }

    static void run(List<String> argv, PrintStream out) {
        Args args = Args.parse("plan", argv,
                Set.of("--input", "--fsroot", "--split", "--split-at", "--color", "--tasks", "--format"), Set.of());
        String format = args.choice("--format", "text", "text", "json");
        String how = args.oneOf("--split", "--split-at");
        if (how == null) throw new UsageException("plan: give --split N or --split-at TYPE");
        if (!args.has("--color")) throw new UsageException("plan: --color auto|packed|spread|N is required");
        int tasks = args.positiveInt("--tasks");
        Topology topology = TopologyCommand.load(args);
        Plan plan = plan(topology, how.equals("--split") ? args.get("--split") : null,
                how.equals("--split-at") ? args.get("--split-at") : null, args.get("--color"), tasks);
        out.print(format.equals("json") ? Json.write(json(plan)) : text(topology, plan));
    }

    static Plan plan(Topology topology, String split, String splitAt, String color, int tasks) {
        Scope scope = Scope.of(topology);
        Split s;
        if (split != null) {
            int p;
            try {
                p = Integer.parseInt(split.strip());
            } catch (NumberFormatException e) {
                throw new UsageException("plan: --split '" + split + "' is not an integer");
            }
            s = scope.split(p);
        } else {
            String type = splitAt.strip().toLowerCase(Locale.ROOT);
            if (!SPLIT_AT_TYPES.contains(type)) {
                throw new UsageException("plan: --split-at '" + splitAt + "' is not one of " + String.join(", ", SPLIT_AT_TYPES));
            }
            s = scope.splitAt(HwType.parse(type));
        }
        return new Plan(s, map(s, color, tasks));
    }

    private static List<Split.Assignment> map(Split s, String color, int tasks) {
        String c = color.strip().toLowerCase(Locale.ROOT);
        switch (c) {
            case "auto", "packed", "spread", "undefined":
                return s.assign(tasks, Color.valueOf(c.toUpperCase(Locale.ROOT)));
            default:
                int ordinal;
                try {
                    ordinal = Integer.parseInt(c);
                } catch (NumberFormatException e) {
                    throw new UsageException("plan: --color '" + color + "' is not auto, packed, spread or a piece number");
                }
                if (ordinal < 0) throw new UsageException("plan: --color " + ordinal + " is negative");
                int[] ordinals = new int[tasks];
                Arrays.fill(ordinals, ordinal);
                return s.assignByOrdinal(ordinals, new int[tasks]);
        }
    }

    static Map<String, Object> json(Plan plan) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pieces", plan.split().pieces().stream().map(p -> p.cpuset().toString()).toList());
        List<Object> tasks = new ArrayList<>();
        for (int i = 0; i < plan.tasks().size(); i++) {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("task", i);
            Optional<Scope> piece = plan.tasks().get(i).scope();
            t.put("cpus", piece.map(p -> p.cpuset().toString()).orElse(""));
            t.put("devices", piece.map(p -> p.devices().stream().map(PlanCommand::deviceId).toList()).orElse(List.of()));
            tasks.add(t);
        }
        m.put("tasks", tasks);
        return m;
    }

    private static String deviceId(Device d) {
        return d.pci().isEmpty() ? d.name() : d.pci();
    }

    static String text(Topology topology, Plan plan) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-6s %-6s %-24s %s%n", "task", "piece", "cpus", "devices"));
        Map<Integer, Set<Integer>> tasksOnPu = new HashMap<>();
        for (int i = 0; i < plan.tasks().size(); i++) {
            Split.Assignment a = plan.tasks().get(i);
            Optional<Scope> piece = a.scope();
            String index = a.pieceCount() == 0 ? "-" : a.pieceCount() == 1 ? String.valueOf(a.firstPiece())
                    : a.firstPiece() + "-" + (a.firstPiece() + a.pieceCount() - 1);
            String devices = piece.map(p -> String.join(" ", p.devices().stream().map(Device::label).toList())).orElse("");
            sb.append(String.format(Locale.ROOT, "%-6d %-6s %-24s %s%n", i, index,
                    piece.map(p -> p.cpuset().toString()).orElse("(none)"), devices).stripTrailing()).append('\n');
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
