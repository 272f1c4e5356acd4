package io.qv4j.agent.place;

import io.qv4j.agent.log.Log;
import io.qv4j.topology.HwObject;

import java.lang.management.ManagementFactory;

/**
 * The {@code -XX:+UseNUMA} advice: heap allocation follows placement across NUMA nodes only with
 * it, so the first pool pinned across nodes of a JVM without it says so, once per JVM (the report
 * carries the line too).
 */
final class NumaAdvice {

    private boolean noted;
    private volatile String advice;

    /** {@code p} was just pinned: the advice, if it spans NUMA nodes and none was given yet. Under the registry's lock. */
    void note(Pool p, Env e) {
        if (noted || e.topology().numaNodes().size() < 2) return;
        int nodes = 0;
        for (HwObject n : e.topology().numaNodes()) if (n.cpuset().intersects(p.scope)) nodes++;
        if (nodes < 2) return;
        noted = true;
        if (!usesNuma()) {
            advice = "pools are split across NUMA nodes but the JVM runs without -XX:+UseNUMA: heap allocation will not follow placement";
            Log.info(advice + " (add -XX:+UseNUMA; the parallel, G1 and Z collectors honour it)");
        }
    }

    /** The advice given, or null. */
    String advice() {
        return advice;
    }

    /** Asked only when pools span NUMA nodes: the management classes cost milliseconds to load. */
    private static boolean usesNuma() {
        try {
            return ManagementFactory.getRuntimeMXBean().getInputArguments().contains("-XX:+UseNUMA");
        } catch (Throwable t) {
            return false;
        }
    }
}
