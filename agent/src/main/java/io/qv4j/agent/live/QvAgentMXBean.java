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

    /**
     * The JVM's resident memory on each NUMA node, bytes by the node's OS index, from
     * {@code /proc/self/numa_maps} read when asked (as {@code status} reads it); empty where unknown.
     */
    long[] getMemoryByNode();

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

        /** Where its workers' new pages go: local, interleave, bind ({@code memory} in the report, DESIGN.md §7.3). */
        String getMemory();
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

        /** The NUMA nodes its memory policy names, or null where its pages go where first touched. */
        String getMemoryNodes();
    }
}
