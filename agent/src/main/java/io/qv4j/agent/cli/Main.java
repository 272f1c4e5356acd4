package io.qv4j.agent.cli;

import io.qv4j.agent.cli.attach.AttachCommand;
import io.qv4j.agent.cli.compare.CompareCommand;
import io.qv4j.agent.cli.compare.CompareStats;
import io.qv4j.agent.cli.plan.PartitionCommand;
import io.qv4j.agent.cli.plan.PlanCommand;
import io.qv4j.agent.cli.plan.TopologyCommand;
import io.qv4j.agent.cli.shared.UsageException;
import io.qv4j.agent.cli.status.StatusCommand;
import io.qv4j.agent.load.PuLoad;
import io.qv4j.topology.TopologyException;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

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
            "  status [PID...] [--format text|json|svg] [--watch [SECONDS] [--count N]]",
            "        what the agent in each running JVM of yours placed, and each worker's mask in the kernel now",
            "  attach PID [key=value,...] [--wait MILLIS] [--format text|json]",
            "        loads the agent into a running JVM with these options and prints what it placed",
            "  compare [--runs N] [--options 'k=v,...']... [--metric NAME=REGEX[:higher|:lower]]...",
            "          [--timeout S] [--format text|json|svg] -- COMMAND [ARGS...]",
            "        runs COMMAND without the agent, with its defaults and with each --options, in",
            "        alternating rounds, and says for each arm and figure: better, worse or not resolved",
            "  help  this text",
            "",
            "COMMAND --help: its options and an example. --version: the version.",
            "--debug (any command) prints the stack trace of an error.");

    /** Each command's {@code --help}: its options with their defaults, and an example. */
    static final Map<String, String> HELP = Map.of(
            "topology", String.join("\n",
                    "usage: java -jar qv-agent.jar topology [--fsroot DIR | --input FILE|SPEC] [--format text|json]",
                    "  the machine as the agent sees it: packages, NUMA nodes, caches, cores, PUs, devices, CPU kinds",
                    "  --fsroot DIR     a sysfs/procfs dump (DIR/sys, DIR/proc); default: this machine",
                    "  --input FILE     an hwloc v2 XML file (lstopo --of xml), or a synthetic spec",
                    "                   such as 'package:2 numa:2 l3:1 core:8 pu:2 gpu:1 nic:1'",
                    "  --format F       text (default) or json",
                    "example: java -jar qv-agent.jar topology --input 'package:2 core:4 pu:2'"),
            "plan", String.join("\n",
                    "usage: java -jar qv-agent.jar plan [--input FILE|SPEC | --fsroot DIR] [--options 'k=v,...']",
                    "       [--split N | --split-at TYPE] [--color C] [--kind K] --tasks T [--format text|json|svg]",
                    "  which PUs and devices each of T workers of a pool gets, as the agent plans it",
                    "  --input, --fsroot as for topology; default: this machine",
                    "  --options S      the agent's option string; default: the agent's defaults",
                    "  --split N        N regular pieces; --split-at TYPE one piece per package, numa, l3, l2, core (default), pu, gpu, nic",
                    "  --color C        auto, packed, spread (default) or a piece number",
                    "  --kind K         auto (default), performance, efficiency, any or an efficiency rank",
                    "  --tasks T        the pool's size (required)",
                    "  --format F       text (default), json or svg",
                    "example: java -jar qv-agent.jar plan --input 'package:2 core:4 pu:2' --split-at core --tasks 3"),
            "partition", String.join("\n",
                    "usage: java -jar qv-agent.jar partition --parts P [--method exact|orb] [--format text|json] (WEIGHT... | --file F)",
                    "  cuts a list of work weights into P contiguous parts",
                    "  --parts P        how many parts (required)",
                    "  --method M       exact (default: the lightest heaviest part) or orb (bisection)",
                    "  --file F         the weights, one per line, # comments; else the weights as arguments",
                    "  --format F       text (default) or json",
                    "example: java -jar qv-agent.jar partition --parts 2 5 1 1 1 2"),
            "status", String.join("\n",
                    "usage: java -jar qv-agent.jar status [PID...] [--format text|json|svg] [--watch [SECONDS] [--count N]]",
                    "  what the agent in each running JVM of yours (or those PIDs) placed, and each worker's kernel mask now;",
                    "  with the agent's neighbours watcher on: each worker's wait for its PU (waited N %) and moves (moved Nx),",
                    "  a pool released to its scope because others keep its PUs busy, and the watcher's period, moves, releases",
                    "  --format F       text (default), json, or svg (one PID: the machine with each worker on its PUs)",
                    "  --watch [S]      refresh every S seconds (default 1): PU loads, workers' PUs, tasks/s, migrations,",
                    "                   cpu% and wait% (time on a run queue, /proc/PID/task/TID/schedstat) over the interval;",
                    "                   ! marks a PU a worker waited " + Math.round(PuLoad.WAIT * 100) + " % of the interval or more for (contended);",
                    "                   full screen on a terminal (q or Ctrl-C ends it), one JSON line per refresh with --format json",
                    "  --count N        with --watch: stop after N refreshes (default: until q, Ctrl-C or the reader goes)",
                    "example: java -jar qv-agent.jar status 4242"),
            "attach", String.join("\n",
                    "usage: java -jar qv-agent.jar attach PID [key=value,...] [--wait MILLIS] [--format text|json]",
                    "  loads the agent into a running JVM of yours with these options, then prints what it placed",
                    "  key=value,...    the agent's options (docs/options.md); default: its defaults",
                    "  --wait MILLIS    how long to wait for placement before printing (default " + AttachCommand.DEFAULT_WAIT_MILLIS + ")",
                    "  --format F       text (default) or json",
                    "example: java -jar qv-agent.jar attach 4242 split-at=numa,verbose=true"),
            "compare", String.join("\n",
                    "usage: java -jar qv-agent.jar compare [OPTIONS] -- COMMAND [ARGS...]",
                    "  runs COMMAND (any command line that starts JVMs: java -jar app.jar, a script, mvn exec:java) in arms:",
                    "  no agent, the agent's defaults, and one per --options; the agent reaches every JVM it starts through",
                    "  JAVA_TOOL_OPTIONS (yours kept), each run with claims and reports of its own. One warm-up round, not",
                    "  counted, then N rounds of every arm once, the order rotated and reversed between rounds.",
                    "  Per run: wall time, CPU time of the process tree, exit status, metrics, threads the agent pinned.",
                    "  Per arm and figure against no agent: median, min, max, ratio of medians and a verdict: better or",
                    "  worse when " + CompareStats.MIN_RUNS + "+ runs each and the ranges do not overlap, else not resolved.",
                    "  A run that exits non-zero or times out is listed and left out. Ctrl-C prints what ran so far.",
                    "  --runs N         counted rounds after the warm-up (default " + CompareCommand.DEFAULT_RUNS + "; a verdict needs " + CompareStats.MIN_RUNS + " or more)",
                    "  --options S      an arm with these agent options ('k=v,...'); repeatable",
                    "  --metric M       NAME=REGEX[:higher|:lower]: the number in the last line of the output REGEX finds",
                    "                   (its group 1, else the whole match); higher is better unless :lower; repeatable",
                    "  --timeout S      kill a run (its whole process tree) after S seconds (default: no limit)",
                    "  --format F       text (default), json (every run too), or svg (the arms' runs side by side)",
                    "  --from FILE      print a result saved with --format json again, in --format",
                    "  progress goes to stderr on a terminal only; nothing but the result goes to stdout",
                    "example: java -jar qv-agent.jar compare --runs 5 --options split-at=l3 --metric 'ops=([0-9.]+) ops/s' -- java -jar app.jar"),
            "help", USAGE);

    private Main() {
    }

    /** This build's version, from the jar. */
    static String version() {
        try (java.io.InputStream in = Main.class.getResourceAsStream("version.txt")) {
            return in == null ? "(version unknown)" : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
        } catch (java.io.IOException e) {
            return "(version unknown)";
        }
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs a command; returns the exit code (0 ok, 2 bad input). */
    public static int run(String[] argv, PrintStream out, PrintStream err) {
        List<String> args = new java.util.ArrayList<>(Arrays.asList(argv));
        // what follows "--" is compare's COMMAND: its --debug and --help are not ours
        int dash = args.indexOf("--");
        List<String> own = dash < 0 ? args : args.subList(0, dash);
        boolean debug = own.remove("--debug");
        boolean help = own.contains("--help") || own.contains("-h");
        if (args.isEmpty()) {
            err.println(USAGE);
            return 2;
        }
        String command = args.remove(0);
        if (command.equals("--version") || command.equals("version")) {
            out.println("qv4j " + version());
            return 0;
        }
        if (help && HELP.containsKey(command)) {
            out.println(HELP.get(command));
            return 0;
        }
        try {
            int code = 0;
            switch (command) {
                case "topology" -> TopologyCommand.run(args, out);
                case "plan" -> PlanCommand.run(args, out);
                case "partition" -> PartitionCommand.run(args, out);
                case "status" -> code = StatusCommand.run(args, out, err);
                case "attach" -> code = AttachCommand.run(args, out, err);
                case "compare" -> code = CompareCommand.run(args, out, err);
                case "help", "--help", "-h" -> out.println(USAGE);
                default -> throw new UsageException("unknown command '" + command + "' (commands: topology, plan, partition, status, attach, compare, help, --version)");
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
