package io.qv4j.agent.cli.status;

import io.qv4j.agent.cli.plan.TopologyText;
import io.qv4j.agent.cli.shared.JsonValues;
import io.qv4j.agent.load.PuLoad;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code status --watch}'s picture of a view ({@link StatusWatch#view()}) as text: the machine with
 * each PU's load, its workers, {@code !} where one waited for it and {@code *} where another JVM
 * claims it; then each JVM's pools with their rates and workers.
 */
final class WatchText {

    private WatchText() {
    }

    /** The view on {@code topology}, refreshed every {@code interval} seconds, as text; {@code colour}: on a terminal (q quits). */
    static String draw(Topology topology, double interval, Map<String, Object> view, boolean colour) {
        boolean c = colour && System.getenv("NO_COLOR") == null;
        Map<Integer, Double> load = new HashMap<>();
        for (Object o : JsonValues.list(view.get("pus"))) {
            Map<String, Object> p = JsonValues.map(o);
            if (p.get("load") instanceof Number n) load.put(((Number) p.get("pu")).intValue(), n.doubleValue());
        }
        Map<Integer, List<String>> onPu = new TreeMap<>();
        StringBuilder pools = new StringBuilder();
        CpuSet others = null;
        for (Object jo : JsonValues.list(view.get("jvms"))) {
            Map<String, Object> j = JsonValues.map(jo);
            if (j.get("othersClaim") != null) {
                CpuSet o = CpuSet.parse(j.get("othersClaim").toString());
                others = others == null ? o : others.and(o); // claimed by none of the JVMs shown
            }
            pools.append("JVM ").append(j.get("pid")).append(": scope ").append(j.get("jvmScope"))
                    .append(j.get("exclusive") == null ? "" : ", exclusive pus " + j.get("exclusive") + " (the rest on " + j.get("rest") + ")")
                    .append(", claims ").append(j.get("claimed"))
                    .append("  ").append(j.get("command")).append('\n');
            if (j.get("memory") != null) pools.append("  memory by NUMA node: ").append(StatusCommand.memoryLine(JsonValues.list(j.get("memory")))).append('\n');
            if (j.get("memoryAdvice") != null) pools.append("  memory: ").append(j.get("memoryAdvice")).append('\n');
            for (Object po : JsonValues.list(j.get("pools"))) {
                Map<String, Object> p = JsonValues.map(po);
                pools.append(String.format(Locale.ROOT, "  pool %s%s: %s workers, %s tasks/s%n", p.get("name"),
                        Boolean.TRUE.equals(p.get("exclusive")) ? " (exclusive)" : "", p.get("tasks"),
                        p.get("tasksPerSecond") == null ? "-" : String.format(Locale.ROOT, "%.0f", ((Number) p.get("tasksPerSecond")).doubleValue())));
                pools.append(String.format(Locale.ROOT, "    %-24s %-8s %-4s %-10s %-10s %5s %5s %s%n", "worker", "tid", "pu", "cpus", "planned", "cpu%", "wait%",
                        "migrations"));
                for (Object wo : JsonValues.list(p.get("workers"))) {
                    Map<String, Object> w = JsonValues.map(wo);
                    if (w.get("pu") instanceof Number pu) onPu.computeIfAbsent(pu.intValue(), k -> new ArrayList<>()).add(String.valueOf(w.get("name")));
                    pools.append(String.format(Locale.ROOT, "    %-24s %-8s %-4s %-10s %-10s %5s %5s %s%n", w.get("name"), w.get("tid"), str(w.get("pu")),
                            str(w.get("cpus")), str(w.get("planned")), percent(w.get("load")), percent(w.get("waited")), str(w.get("migrations"))));
                }
            }
        }
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "qv4j status --watch %s s   %s%s%n", fmt(interval), new java.util.Date((Long) view.get("time")),
                c ? "   (q quits)" : ""));
        CpuSet claimedElsewhere = others == null ? CpuSet.empty() : others;
        CpuSet contended = view.get("contended") == null ? CpuSet.empty() : CpuSet.parse(view.get("contended").toString());
        sb.append(TopologyText.draw(topology, pu -> {
            Double l = load.get(pu);
            String pct = l == null ? "  -" : String.format(Locale.ROOT, "%3.0f%%", 100 * l);
            if (c && l != null && l >= 0.5) pct = "\033[1;31m" + pct + "\033[0m";
            String mark = !contended.contains(pu) ? "" : c ? "\033[1;31m!\033[0m" : "!";
            List<String> ws = onPu.get(pu);
            return pu + ":" + pct + mark + (claimedElsewhere.contains(pu) ? " *" : "") + (ws == null ? "" : " " + String.join(",", ws));
        }));
        if (!contended.isEmpty()) {
            sb.append(String.format(Locale.ROOT, "! contended: a worker waited %.0f %% of the interval or more for its PU: pus %s%n", 100 * PuLoad.WAIT, contended));
        }
        if (!claimedElsewhere.isEmpty()) sb.append("* claimed by another JVM (or OpenHFT): pus ").append(claimedElsewhere).append('\n');
        sb.append('\n').append(pools);
        if (view.get("gone") != null) sb.append(goneLine(view.get("gone"))).append(": left the view\n");
        return sb.toString();
    }

    static String str(Object o) {
        return o == null ? "-" : o.toString();
    }

    /** A share 0 to 1 as a whole percentage, {@code -} when unknown. */
    private static String percent(Object share) {
        return share instanceof Number n ? String.format(Locale.ROOT, "%.0f", 100 * n.doubleValue()) : "-";
    }

    static String fmt(double s) {
        return s == Math.rint(s) ? String.valueOf((long) s) : String.valueOf(s);
    }

    /** {@code process 4242 exited}, {@code processes 4242, 4343 exited}. */
    static String goneLine(Object pids) {
        List<Object> l = JsonValues.list(pids);
        return (l.size() == 1 ? "process " : "processes ") + String.join(", ", l.stream().map(String::valueOf).toList()) + " exited";
    }
}
