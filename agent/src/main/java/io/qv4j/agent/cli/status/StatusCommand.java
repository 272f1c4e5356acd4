package io.qv4j.agent.cli.status;

import io.qv4j.agent.cli.plan.PlanSvg;
import io.qv4j.agent.cli.shared.Args;
import io.qv4j.agent.cli.shared.JsonValues;
import io.qv4j.agent.cli.shared.Targets;
import io.qv4j.agent.cli.shared.UsageException;
import io.qv4j.agent.load.NumaMemory;
import io.qv4j.agent.platform.TopologyInput;
import io.qv4j.agent.report.JsonReader;
import io.qv4j.agent.report.NodeMemory;
import com.sun.tools.attach.VirtualMachine;
import io.qv4j.agent.report.Json;
import io.qv4j.topology.CpuSet;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code status [PID...] [--format text|json|svg]}: what the agent in each running JVM placed, next
 * to what the kernel says now. The agent publishes its report in the JVM's agent properties; this
 * command reads them through the Attach API and reads each worker's mask from
 * {@code /proc/PID/task/TID/status} itself. Without PIDs: every JVM of this user running the agent.
 * Beside each worker, what the agent's busy-neighbours watcher saw: its share of the last period
 * spent waiting for its PU and how often it was moved; a pool released to its scope says so.
 */
public final class StatusCommand {

    private StatusCommand() {
    }

    public static int run(List<String> argv, PrintStream out, PrintStream err) {
        // --watch takes an optional interval: the word after it, when that is a number
        List<String> rest = new ArrayList<>(argv);
        double watch = -1;
        int w = rest.indexOf("--watch");
        if (w >= 0) {
            rest.remove(w);
            watch = 1;
            if (w < rest.size() && rest.get(w).matches("[0-9]+(\\.[0-9]+)?")) watch = Double.parseDouble(rest.remove(w));
            if (watch < 0.1 || watch > 3600) throw new UsageException("status: --watch " + WatchText.fmt(watch) + " is not an interval of 0.1 to 3600 seconds");
        }
        Args args = Args.parse("status", rest, Set.of("--format", "--count"), Set.of(), true);
        String format = args.choice("--format", "text", "text", "json", "svg");
        boolean named = !args.positional().isEmpty();
        if (watch > 0) {
            if (format.equals("svg")) throw new UsageException("status: --watch draws text or json, not svg");
            long count = args.has("--count") ? args.positiveInt("--count") : 0;
            try {
                return new StatusWatch(named ? pids("status", args.positional()) : List.of(), named, watch, format.equals("json"), count, out, err).run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 1;
            }
        }
        if (args.has("--count")) throw new UsageException("status: --count goes with --watch");
        if (format.equals("svg")) {
            if (args.positional().size() != 1) throw new UsageException("status: --format svg draws one JVM: give its PID");
            Map<String, Object> j;
            try {
                j = read(pids("status", args.positional()).get(0));
            } catch (Targets.Refusal r) {
                err.println("qv: " + r.getMessage());
                return 1;
            }
            out.print(svg(TopologyInput.live(), j));
            return 0;
        }
        List<Long> pids = named ? pids("status", args.positional()) : Targets.jvms();
        List<Map<String, Object>> jvms = new ArrayList<>();
        int code = 0;
        for (long pid : pids) {
            try {
                Map<String, Object> j = read(pid);
                if (j != null) jvms.add(j);
            } catch (Targets.Refusal r) {
                if (!named) continue;
                code = 1;
                if (format.equals("json")) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("pid", pid);
                    m.put("error", r.getMessage());
                    jvms.add(m);
                } else {
                    err.println("qv: " + r.getMessage());
                }
            }
        }
        if (format.equals("json")) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("jvms", jvms);
            out.print(Json.write(m));
        } else {
            if (jvms.isEmpty() && !named) out.println("no JVM of this user runs the qv4j agent");
            for (Map<String, Object> j : jvms) text(j, out);
        }
        return code;
    }

    public static List<Long> pids(String command, List<String> words) {
        List<Long> out = new ArrayList<>();
        for (String w : words) {
            try {
                long pid = Long.parseLong(w);
                if (pid <= 0) throw new NumberFormatException();
                out.add(pid);
            } catch (NumberFormatException e) {
                throw new UsageException(command + ": '" + w + "' is not a process id");
            }
        }
        return out;
    }

    /** The status of the JVM {@code pid}; a refusal when it cannot be read or runs no agent. */
    static Map<String, Object> read(long pid) throws Targets.Refusal {
        VirtualMachine vm = Targets.attach(pid);
        try {
            Targets.Published p = Targets.published(vm);
            if (p.marker() == null) {
                throw new Targets.Refusal(pid + ": no qv4j agent in this JVM (java -jar qv-agent.jar attach " + pid + " [OPTIONS] loads one)"
                        + (p.error() != null ? "; its last attach was refused: " + p.error() : ""));
            }
            return of(pid, p);
        } catch (IOException e) {
            throw new Targets.Refusal(pid + ": cannot read the agent's status: " + e.getMessage());
        } finally {
            try {
                vm.detach();
            } catch (IOException ignored) {
                // gone
            }
        }
    }

    /** The published report with each thread's kernel mask beside the agent's plan. */
    public static Map<String, Object> of(long pid, Targets.Published p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pid", pid);
        m.put("command", Targets.command(pid, 200));
        m.put("java", p.system().getProperty("java.version"));
        m.put("agent", JsonReader.parse(p.marker()));
        Map<String, Object> report = p.report() == null ? null : JsonValues.map(JsonReader.parse(p.report()));
        if (report != null) {
            for (Object pool : JsonValues.list(report.get("pools"))) {
                for (Object t : JsonValues.list(JsonValues.map(pool).get("threads"))) kernel(pid, JsonValues.map(t));
            }
        }
        m.put("report", report);
        List<Object> memory = NodeMemory.of(NumaMemory.of(pid));
        m.put("memory", memory);
        m.put("memoryAdvice", NodeMemory.advice(report, memory));
        return m;
    }

    /** Adds {@code kernel} (the mask now) and {@code matches} (null: the agent did not bind this thread). */
    private static void kernel(long pid, Map<String, Object> t) {
        boolean exited = Boolean.TRUE.equals(t.get("exited"));
        long tid = t.get("tid") instanceof Number n ? n.longValue() : -1;
        String kernel = exited ? null : Targets.kernelCpus(pid, tid);
        t.put("kernel", kernel);
        Object planned = t.get("cpuset");
        Boolean matches = null;
        if (!exited && Boolean.TRUE.equals(t.get("bound")) && planned != null) {
            matches = kernel != null && CpuSet.parse(kernel).equals(CpuSet.parse(planned.toString()));
        }
        t.put("matches", matches);
    }

    /**
     * The JVM drawn as {@code plan --format svg} draws a plan ({@link PlanSvg}): each live worker of
     * a pinned pool on the PUs the kernel shows now, {@code !} after its name where that differs
     * from the plan; PUs outside the JVM's scope crossed out.
     */
    static String svg(io.qv4j.topology.Topology t, Map<String, Object> j) {
        Map<String, Object> report = j.get("report") == null ? Map.of() : JsonValues.map(j.get("report"));
        Map<String, Object> a = report.get("agent") == null ? Map.of() : JsonValues.map(report.get("agent"));
        CpuSet scope = a.get("jvmScope") == null ? t.allowed() : CpuSet.parse(a.get("jvmScope").toString());
        CpuSet isolated = a.get("isolated") == null ? CpuSet.empty() : CpuSet.parse(a.get("isolated").toString());
        Map<Integer, List<String>> onPu = new java.util.TreeMap<>();
        Map<Integer, Integer> poolOnPu = new HashMap<>();
        List<String> legend = new ArrayList<>();
        int workers = 0;
        for (Object o : JsonValues.list(report.get("pools"))) {
            Map<String, Object> p = JsonValues.map(o);
            if (!Boolean.TRUE.equals(p.get("pinned"))) continue;
            int colour = legend.size() % 8;
            legend.add(p.get("name") + " " + PlanSvg.COLOUR_NAMES[colour]);
            for (Object to : JsonValues.list(p.get("threads"))) {
                Map<String, Object> w = JsonValues.map(to);
                if (Boolean.TRUE.equals(w.get("exited"))) continue;
                Object cpus = w.get("kernel") != null ? w.get("kernel") : w.get("cpuset");
                if (cpus == null) continue;
                String name = w.get("name") + (Boolean.FALSE.equals(w.get("matches")) ? "!" : "");
                CpuSet.parse(cpus.toString()).stream().forEach(pu -> {
                    onPu.computeIfAbsent(pu, k -> new ArrayList<>()).add(name);
                    poolOnPu.putIfAbsent(pu, colour);
                });
                workers++;
            }
        }
        String caption = "JVM " + j.get("pid") + ": " + workers + " workers of pinned pools where the kernel has them now (! = not where the agent put it)"
                + (legend.isEmpty() ? "" : "; colours: " + String.join(", ", legend))
                + (a.get("exclusive") == null ? "" : "; exclusive pus " + a.get("exclusive") + ", the rest of the JVM on " + a.get("rest"))
                + (j.get("memory") == null ? "" : "; memory by NUMA node: " + memoryLine(JsonValues.list(j.get("memory"))));
        return PlanSvg.draw(t, pu -> !scope.contains(pu) ? "x"
                        : onPu.containsKey(pu) ? String.join(",", onPu.get(pu)) : isolated.contains(pu) ? "isolated" : "",
                pu -> "g" + poolOnPu.getOrDefault(pu, 0), caption);
    }

    /** {@code node 0 812.0 MiB (98 %), node 1 12.5 MiB (2 %)}. */
    static String memoryLine(List<Object> nodes) {
        long total = 0;
        for (Object o : nodes) total += ((Number) JsonValues.map(o).get("bytes")).longValue();
        List<String> each = new ArrayList<>();
        for (Object o : nodes) {
            Map<String, Object> n = JsonValues.map(o);
            long b = ((Number) n.get("bytes")).longValue();
            each.add(String.format(java.util.Locale.ROOT, "node %s %.1f MiB (%d %%)", n.get("node"), b / 1048576.0, total == 0 ? 0 : Math.round(100.0 * b / total)));
        }
        return String.join(", ", each);
    }

    /** {@code pool critical-loop pus 3}: each exclusive pool and its PUs. */
    private static String exclusivePools(Map<String, Object> report) {
        List<String> each = new ArrayList<>();
        for (Object o : JsonValues.list(report.get("pools"))) {
            Map<String, Object> p = JsonValues.map(o);
            if (Boolean.TRUE.equals(p.get("exclusive"))) each.add("pool " + p.get("name") + " pus " + p.get("scope"));
        }
        return String.join(", ", each);
    }

    /** {@code millis} as the report's age: tenths of a second, never below 0 (clocks read in two processes). */
    static String age(long millis) {
        return String.format(Locale.ROOT, "%.1f s", Math.max(0, millis) / 1000.0);
    }

    public static void text(Map<String, Object> j, PrintStream out) {
        Map<String, Object> marker = JsonValues.map(j.get("agent"));
        out.println("JVM " + j.get("pid") + " (Java " + j.get("java") + "): " + j.get("command"));
        Map<String, Object> report = j.get("report") == null ? null : JsonValues.map(j.get("report"));
        String args = String.valueOf(marker.get("args"));
        out.println("  agent: " + (args.isEmpty() ? "(defaults)" : args) + (Boolean.TRUE.equals(marker.get("attached")) ? ", attached" : ", from the command line"));
        if (report == null) {
            out.println("  starting: no report published yet");
            return;
        }
        // republished a while after a change (longer while a publish is dear): say how old it is
        if (report.get("time") instanceof Number t) out.println("  report: made " + age(System.currentTimeMillis() - t.longValue()) + " ago");
        Map<String, Object> a = JsonValues.map(report.get("agent"));
        out.println("  scope " + a.get("jvmScope") + ", policy " + a.get("policy") + ", bind " + a.get("bind") + ", binder " + a.get("binder")
                + (a.get("problem") != null ? ", problem: " + a.get("problem") : ""));
        if (j.get("memory") != null) out.println("  memory by NUMA node (resident, /proc/PID/numa_maps): " + memoryLine(JsonValues.list(j.get("memory"))));
        if (j.get("memoryAdvice") != null) out.println("  memory: " + j.get("memoryAdvice"));
        if (a.get("isolated") != null) {
            out.println("  isolated by the kernel: pus " + a.get("isolated")
                    + (a.get("poolScope") != null ? "; pools are planned on pus " + a.get("poolScope") : ""));
        }
        if (a.get("exclusive") != null) {
            out.println("  exclusive: pus " + a.get("exclusive") + " (" + exclusivePools(report) + "); the rest of the JVM runs on pus " + a.get("rest")
                    + ("share".equals(a.get("exclusiveVmThreads")) ? ", its GC, JIT and VM threads anywhere (exclusive-vm-threads=share)" : ", its GC, JIT and VM threads too (exclusive-vm-threads=apart)"));
        }
        if (a.get("node") != null) for (String line : node(JsonValues.map(a.get("node")))) out.println("  " + line);
        List<Object> kinds = a.get("cpukinds") == null ? List.of() : JsonValues.list(a.get("cpukinds"));
        if (kinds.size() > 1) {
            List<String> each = new ArrayList<>();
            for (Object k : kinds) each.add("efficiency " + JsonValues.map(k).get("efficiency") + " pus " + JsonValues.map(k).get("cpus"));
            out.println("  cpu kinds: " + String.join(", ", each));
        }
        if (a.get("c2Directive") != null) {
            out.println("  jit: " + ("added".equals(a.get("c2Directive")) ? "the agent's code is kept off C2 (a compiler directive it added once the application had started many threads)"
                    : "the agent's code is left to C2: the directive was " + a.get("c2Directive")));
        }
        out.println("  " + neighbours(report.get("neighbours") == null ? null : JsonValues.map(report.get("neighbours"))));
        List<Object> pools = JsonValues.list(report.get("pools"));
        if (pools.isEmpty()) out.println("  no pools yet");
        for (Object o : pools) {
            Map<String, Object> p = JsonValues.map(o);
            if (!Boolean.TRUE.equals(p.get("pinned"))) {
                out.println("  pool " + p.get("name") + " (" + p.get("class") + "): not pinned" + (p.get("reason") != null ? " (" + p.get("reason") + ")" : ""));
                continue;
            }
            out.println("  pool " + p.get("name") + " (" + p.get("class") + ", " + p.get("tasks") + " tasks, policy " + p.get("policy")
                    + ", scope " + p.get("scope") + (Boolean.TRUE.equals(p.get("exclusive")) ? ", exclusive" : "")
                    + (p.get("memory") != null && !"local".equals(p.get("memory")) ? ", memory " + p.get("memory") : "")
                    + (Boolean.TRUE.equals(p.get("sharesPus")) ? ", shares PUs" : "")
                    + (Boolean.TRUE.equals(p.get("released")) ? ", released: others keep its PUs busy; the kernel balances its workers" : "") + ")");
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"tid", "thread", "slot", "piece", "planned", "kernel", ""});
            for (Object to : JsonValues.list(p.get("threads"))) {
                Map<String, Object> t = JsonValues.map(to);
                if (Boolean.TRUE.equals(t.get("exited"))) continue;
                Object match = t.get("matches");
                StringBuilder state = new StringBuilder(match == null ? "not bound" : Boolean.TRUE.equals(match) ? "ok" : "DIFFERS");
                if (t.get("waited") instanceof Number w) state.append(String.format(Locale.ROOT, ", waited %.0f %%", 100 * w.doubleValue()));
                if (t.get("moves") instanceof Number n && n.longValue() > 0) state.append(", moved ").append(n.longValue()).append('x');
                if (t.get("memoryNodes") != null) state.append(", memory on nodes ").append(t.get("memoryNodes"));
                rows.add(new String[] {String.valueOf(t.get("tid")), String.valueOf(t.get("name")), String.valueOf(t.get("slot")),
                        String.valueOf(t.get("piece")), String.valueOf(t.get("cpuset")), t.get("kernel") == null ? "gone" : t.get("kernel").toString(),
                        state.toString()});
            }
            table(rows, out);
        }
    }

    /**
     * The report's {@code neighbours} as a line: {@code neighbours: watched every 500 ms, 2 moves,
     * 1 release}, or {@code neighbours: off} without it (the agent's {@code neighbours=off}).
     */
    static String neighbours(Map<String, Object> n) {
        if (n == null) return "neighbours: off";
        return "neighbours: watched every " + n.get("periodMillis") + " ms, " + count(n.get("moves"), "move") + ", " + count(n.get("releases"), "release");
    }

    private static String count(Object n, String word) {
        return n + " " + word + (n instanceof Number x && x.longValue() == 1 ? "" : "s");
    }

    private static void table(List<String[]> rows, PrintStream out) {
        int[] w = new int[rows.get(0).length];
        for (String[] r : rows) for (int i = 0; i < r.length; i++) w[i] = Math.max(w[i], r[i].length());
        for (String[] r : rows) {
            StringBuilder sb = new StringBuilder("    ");
            for (int i = 0; i < r.length; i++) {
                sb.append(r[i]);
                if (i < r.length - 1) sb.append(" ".repeat(w[i] - r[i].length() + 2));
            }
            out.println(sb.toString().stripTrailing());
        }
    }

    /**
     * The report's {@code agent.node} as prose: {@code launcher: ...} where there is one, then
     * {@code claims: node, directory D, this JVM holds 0-1, OpenHFT files held 0-1}, and what was lost.
     */
    static List<String> node(Map<String, Object> n) {
        List<String> out = new ArrayList<>();
        if (n.get("launcher") != null) {
            out.add("launcher: " + n.get("launcher") + ", local rank " + n.get("localRank") + " of " + n.get("localSize") + ", "
                    + n.get("launcherDecision") + (Boolean.TRUE.equals(n.get("appliedToProcess")) ? ", applied to the whole process" : "")
                    + (n.get("launcherNoBinding") != null ? ", told not to bind (" + n.get("launcherNoBinding") + ")" : ""));
        }
        if (n.get("cpuQuota") != null) {
            out.add("CPU quota: " + n.get("cpuQuota") + " CPUs" + (Boolean.TRUE.equals(n.get("quotaBelowAllowed")) ? ", below the allowed PUs" : ""));
        }
        StringBuilder c = new StringBuilder("claims: " + n.get("claims"));
        if (n.get("claimsDir") != null) c.append(", directory ").append(n.get("claimsDir"));
        if (n.get("claimsRefused") != null) c.append(", refused: ").append(n.get("claimsRefused"));
        if (n.get("claimed") != null) c.append(", this JVM holds ").append(n.get("claimed").toString().isEmpty() ? "nothing" : n.get("claimed"));
        if (n.get("openhftHeld") != null && !n.get("openhftHeld").toString().isEmpty()) c.append(", OpenHFT files held ").append(n.get("openhftHeld"));
        out.add(c.toString());
        Map<String, Object> lost = n.get("claimsLost") == null ? Map.of() : JsonValues.map(n.get("claimsLost"));
        if (!lost.isEmpty()) {
            List<String> each = new ArrayList<>();
            lost.forEach((pu, who) -> each.add("pu " + pu + " to " + who));
            out.add("claims lost: " + String.join(", ", each));
        }
        return out;
    }
}
