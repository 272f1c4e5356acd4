package io.qv4j.agent.config;

import io.qv4j.api.Color;
import io.qv4j.topology.HwType;

import java.util.List;

/**
 * The agent's settings after merging every source ({@link OptionsParser}). Immutable.
 *
 * @param enabled    false: the agent installs nothing
 * @param strict     true: a bad option stops the JVM instead of disabling the agent
 * @param splitAt    the object type each piece is made of (ignored when {@code split > 0})
 * @param split      a regular split into this many pieces; 0 = use {@code splitAt}
 * @param color      how a pool's workers map onto the pieces
 * @param pools      thread-name globs naming the pools to pin; empty = every application pool
 * @param commonPool pin the common ForkJoinPool too
 * @param bind       on, off (hooks and bookkeeping only) or dry-run (place and report, never bind)
 * @param topology   a synthetic spec or an hwloc XML file used instead of the live machine; null = live
 * @param verbose    one stderr line per pinned thread
 * @param report     a JSON report written at exit; null = none
 * @param node       several JVMs on one node: local rank, claims, quota
 * @param rebalance  load-proportional re-splits of the JVM scope among pinned pools: period and threshold; null = off (the default: not even its class is loaded)
 */
public record Options(boolean enabled, boolean strict, HwType splitAt, int split, Color color, List<String> pools,
                      boolean commonPool, Bind bind, String topology, boolean verbose, String report,
                      NodeOptions node, RebalanceOptions rebalance) {

    public enum Bind { ON, OFF, DRY_RUN }

    public static Options defaults() {
        return new Options(true, false, HwType.CORE, 0, Color.SPREAD, List.of(), false, Bind.ON, null, false, null,
                NodeOptions.defaults(), null);
    }

    /** Without rebalancing (off). */
    public Options(boolean enabled, boolean strict, HwType splitAt, int split, Color color, List<String> pools,
                   boolean commonPool, Bind bind, String topology, boolean verbose, String report, NodeOptions node) {
        this(enabled, strict, splitAt, split, color, pools, commonPool, bind, topology, verbose, report, node, null);
    }

    /** {@code split-at=core color=spread}: the policy in words, for logs and the report. */
    public String policy() {
        return (split > 0 ? "split=" + split : "split-at=" + splitAt.shortName()) + " color=" + color.name().toLowerCase(java.util.Locale.ROOT);
    }
}
