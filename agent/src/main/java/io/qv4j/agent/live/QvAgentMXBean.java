package io.qv4j.agent.live;

/**
 * The agent as a platform MXBean, {@code io.qv4j:type=Agent}. Every attribute is an open type
 * (strings, numbers, arrays of composite data): a JMX client needs none of the agent's classes.
 * All come from the same snapshot as the JSON report.
 */
public interface QvAgentMXBean {

    /** The agent's settings: bind, policy, pools, binder, jvmScope, ... ({@code agent} in the report), as "key=value". */
    String[] getSettings();

    /** The machine's CPU kinds in hwloc's order ({@code agent.cpukinds}), as "efficiency 1: pus 0-11"; empty where none. */
    String[] getCpuKinds();

    /** The JVM's scope, a cpulist ({@code agent.jvmScope}). */
    String getScope();

    /** The node-wide claims and this JVM's share of the node, as JSON ({@code agent.node}), or null. */
    String getNode();

    /** Every pool the agent knows. */
    PoolInfo[] getPools();

    /** Every worker thread of every pool. */
    ThreadInfo[] getThreads();

    /** The whole report as JSON, exactly what {@code report=FILE} writes. */
    String getReportJson();

    /** A pool (composite data to a JMX client). */
    interface PoolInfo {
        int getId();

        String getName();

        String getPoolClass();

        boolean isPinned();

        String getReason();

        String getPolicy();

        int getTasks();

        String getScope();

        boolean isSharesPus();

        /** Its workers have cores of their own ({@code exclusive} in the report, DESIGN.md §7.2). */
        boolean isExclusive();
    }

    /** A worker thread (composite data to a JMX client). */
    interface ThreadInfo {
        String getPool();

        String getName();

        long getTid();

        int getSlot();

        String getCpuset();

        String getPiece();

        boolean isBound();

        boolean isExited();
    }
}
