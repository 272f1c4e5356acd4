package io.qv4j.agent.cli.plan;

import io.qv4j.agent.cli.shared.Args;
import io.qv4j.agent.platform.TopologyInput;
import io.qv4j.agent.report.Json;
import io.qv4j.topology.Topology;

import java.io.PrintStream;
import java.util.List;
import java.util.Set;

/** {@code topology [--fsroot DIR | --input FILE|SPEC] [--format text|json]}. */
public final class TopologyCommand {

    private TopologyCommand() {
    }

    public static void run(List<String> argv, PrintStream out) {
        Args args = Args.parse("topology", argv, Set.of("--fsroot", "--input", "--format"), Set.of());
        String format = args.choice("--format", "text", "text", "json");
        Topology topology = load(args);
        out.print(format.equals("json") ? Json.write(TopologySummary.of(topology)) : TopologyText.draw(topology));
    }

    /** The topology named by {@code --fsroot} or {@code --input}, else the live machine. */
    static Topology load(Args args) {
        String from = args.oneOf("--fsroot", "--input");
        if (from == null) return TopologyInput.live();
        return from.equals("--fsroot") ? TopologyInput.fsroot(args.get(from)) : TopologyInput.input(args.get(from));
    }
}
