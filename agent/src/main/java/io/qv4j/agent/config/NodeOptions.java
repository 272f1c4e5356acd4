package io.qv4j.agent.config;

import io.qv4j.topology.HwType;

/**
 * Options for several JVMs on one node (launchers, node-wide claims, container quotas). Kept in
 * their own record so the main {@link Options} grows by one component only.
 *
 * @param localRank    {@code local-rank=N/M}: this JVM is local rank N of M; null = from the launcher's variables
 * @param rankSplitAt  {@code rank-split-at}: how the node is cut among local ranks; null = a balanced split
 * @param claims       {@code claims}: NODE (the default: claim what this JVM pins, plan on what others left), OBSERVE (plan around others' claims, take none), OFF
 * @param claimsDir    {@code claims-dir}: the per-user claims directory; null = {@code $XDG_RUNTIME_DIR/qv4j} when usable, else {@code /tmp/qv4j-$USER}
 * @param respectQuota {@code respect-quota}: shrink the JVM scope to ⌈CPU quota⌉ PUs
 * @param claimsRefreshMillis {@code claims-refresh}: how often held lock files are touched and checked; 0 = never
 * @param neighboursMillis {@code neighbours}: plans leave out PUs busy with others' work, and every this often pinned
 *                     workers that wait for their PU are moved or released (DESIGN.md §7.1); 0 = off: fixed pinning
 */
public record NodeOptions(int[] localRank, HwType rankSplitAt, Claims claims, String claimsDir, boolean respectQuota,
                          long claimsRefreshMillis, long neighboursMillis) {

    /** One minute: far below any cleaner's age limit, and a deleted claim is made again soon. */
    public static final long CLAIMS_REFRESH_MILLIS = 60_000;

    /** Half a second: a neighbour that arrives is escaped within about a second, at well under 1 % of a PU. */
    public static final long NEIGHBOURS_MILLIS = 500;

    public enum Claims { NODE, OBSERVE, OFF }

    public static NodeOptions defaults() {
        return new NodeOptions(null, null, Claims.NODE, null, false, CLAIMS_REFRESH_MILLIS, NEIGHBOURS_MILLIS);
    }
}
