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
 */
public record NodeOptions(int[] localRank, HwType rankSplitAt, Claims claims, String claimsDir, boolean respectQuota,
                          long claimsRefreshMillis) {

    /** One minute: far below any cleaner's age limit, and a deleted claim is made again soon. */
    public static final long CLAIMS_REFRESH_MILLIS = 60_000;

    public enum Claims { NODE, OBSERVE, OFF }

    public static NodeOptions defaults() {
        return new NodeOptions(null, null, Claims.NODE, null, false, CLAIMS_REFRESH_MILLIS);
    }
}
