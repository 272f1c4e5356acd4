package io.qv4j.agent.report;

import io.qv4j.topology.CpuSet;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The JVM's resident memory by NUMA node beside the nodes its pinned workers run on (DESIGN.md
 * §7.3): the figures {@code status} shows and the report written at exit carries, and the measured
 * {@code -XX:+UseNUMA} advice both give.
 */
public final class NodeMemory {

    private NodeMemory() {
    }

    /** {@code [{"node": 0, "bytes": 123}, ...]} by node; null where unknown (no {@code numa_maps}). */
    public static List<Object> of(Map<Integer, Long> byNode) {
        if (byNode.isEmpty()) return null;
        List<Object> out = new ArrayList<>();
        for (Map.Entry<Integer, Long> n : new TreeMap<>(byNode).entrySet()) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("node", n.getKey());
            e.put("bytes", n.getValue());
            out.add(e);
        }
        return out;
    }

    /**
     * Where more than half of {@code memory} sits on NUMA nodes none of the report's pinned workers
     * run on, {@code 81 % of the JVM's memory is on node 0, where none of its pinned workers run
     * (they run on nodes 1-3): ...}; else null. {@code report} is a report as
     * {@link PlacementReport#snapshot} makes it, or as read back from its JSON.
     */
    public static String advice(Map<String, Object> report, List<Object> memory) {
        if (report == null || memory == null) return null;
        BitSet workerNodes = new BitSet();
        for (Object o : list(report.get("pools"))) {
            Map<?, ?> p = (Map<?, ?>) o;
            if (!Boolean.TRUE.equals(p.get("pinned"))) continue;
            for (Object so : list(p.get("slots"))) {
                Map<?, ?> slot = (Map<?, ?>) so;
                if (slot.get("thread") == null) continue;
                for (Object n : list(slot.get("numa"))) if (n instanceof Number k) workerNodes.set(k.intValue());
            }
        }
        if (workerNodes.isEmpty()) return null;
        long total = 0;
        long away = 0;
        BitSet awayNodes = new BitSet();
        for (Object o : memory) {
            Map<?, ?> n = (Map<?, ?>) o;
            long b = ((Number) n.get("bytes")).longValue();
            int node = ((Number) n.get("node")).intValue();
            total += b;
            if (!workerNodes.get(node) && b > 0) {
                away += b;
                awayNodes.set(node);
            }
        }
        if (total == 0 || away * 2 <= total) return null;
        CpuSet where = CpuSet.of(awayNodes);
        return Math.round(100.0 * away / total) + " % of the JVM's memory is on node" + (where.cardinality() > 1 ? "s " : " ") + where
                + ", where none of its pinned workers run (they run on node" + (workerNodes.cardinality() > 1 ? "s " : " ") + CpuSet.of(workerNodes)
                + "): memory=bind or interleave places the workers' new pages, -XX:+UseNUMA the heap's";
    }

    private static List<?> list(Object o) {
        return o instanceof List<?> l ? l : List.of();
    }
}
