package io.qv4j.agent.cli;

import io.qv4j.topology.TopologyException;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * {@code java -jar qv-agent.jar COMMAND ...}: the engine for humans and scripts. Errors are one
 * line on stderr and exit code 2; {@code --debug} anywhere adds the stack trace.
 */
public final class Main {

    static final String USAGE = String.join("\n",
            "usage: java -jar qv-agent.jar COMMAND [OPTIONS]",
            "",
            "commands:",
            "  topology [--fsroot DIR | --input FILE|SPEC] [--format text|json]",
            "        the machine: live, a sysfs dump, an hwloc v2 XML file or a synthetic spec",
            "        such as 'package:2 numa:2 l3:1 core:8 pu:2 gpu:1 nic:1'",
            "  plan [--input FILE|SPEC | --fsroot DIR] (--split N | --split-at TYPE)",
            "       --color auto|packed|spread|N [--kind auto|performance|efficiency|any|N]",
            "       --tasks T [--format text|json|svg]",
            "        which PUs and devices each of T tasks gets (default: this machine);",
            "        TYPE: package, numa, l3, l2, core, pu, gpu, nic",
            "  partition --parts P [--method exact|orb] [--format text|json] (WEIGHT... | --file F)",
            "        cuts the weights (non-negative integers, or F with one per line, # comments)",
            "        into P contiguous parts by work: exact (lightest heaviest part) or ORB bisection",
            "  status [PID...] [--format text|json]",
            "        what the agent in each running JVM of yours placed, and each worker's mask in the kernel now",
            "  attach PID [key=value,...] [--wait MILLIS] [--format text|json]",
            "        loads the agent into a running JVM with these options and prints what it placed",
            "  help  this text",
            "",
            "--debug (any command) prints the stack trace of an error.");

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs a command; returns the exit code (0 ok, 2 bad input). */
    static int run(String[] argv, PrintStream out, PrintStream err) {
        List<String> args = new java.util.ArrayList<>(Arrays.asList(argv));
        boolean debug = args.remove("--debug");
        if (args.isEmpty()) {
            err.println(USAGE);
            return 2;
        }
        String command = args.remove(0);
        try {
            int code = 0;
            switch (command) {
                case "topology" -> TopologyCommand.run(args, out);
                case "plan" -> PlanCommand.run(args, out);
                case "partition" -> PartitionCommand.run(args, out);
                case "status" -> code = StatusCommand.run(args, out, err);
                case "attach" -> code = AttachCommand.run(args, out, err);
                case "help", "--help", "-h" -> out.println(USAGE);
                default -> throw new UsageException("unknown command '" + command + "' (commands: topology, plan, partition, status, attach, help)");
            }
            out.flush();
            err.flush();
            return code;
        } catch (UsageException | TopologyException | IllegalArgumentException e) {
            err.println("qv: " + e.getMessage());
            if (debug) e.printStackTrace(err);
            return 2;
        } catch (RuntimeException | Error e) {
            err.println("qv: internal error: " + e + " (run with --debug for details)");
            if (debug) e.printStackTrace(err);
            return 1;
        }
    }
}
