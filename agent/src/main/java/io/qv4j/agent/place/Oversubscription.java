package io.qv4j.agent.place;

import io.qv4j.topology.CpuSet;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The Open MPI rule, never oversubscribe by pinning: a piece that would get more tasks than it
 * has PUs pins none of them; they share the pool's scope instead. One rule for the agent and
 * {@code plan}.
 */
public final class Oversubscription {

    private Oversubscription() {
    }

    /** For each task, true when its piece (non-null) would hold more tasks than PUs. */
    public static boolean[] of(List<CpuSet> perTask) {
        Map<CpuSet, Integer> tasks = new HashMap<>();
        for (CpuSet c : perTask) {
            if (c == null) continue;
            Integer n = tasks.get(c); // no method reference: this runs at the first plan, where one costs a cold JVM a few ms
            tasks.put(c, n == null ? 1 : n + 1);
        }
        boolean[] out = new boolean[perTask.size()];
        for (int i = 0; i < out.length; i++) {
            CpuSet c = perTask.get(i);
            out[i] = c != null && tasks.get(c) > c.cardinality();
        }
        return out;
    }
}
