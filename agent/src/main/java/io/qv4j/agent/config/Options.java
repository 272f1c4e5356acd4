package io.qv4j.agent.config;

import io.qv4j.api.Color;
import io.qv4j.api.Memory;
import io.qv4j.api.PlacementSpec;
import io.qv4j.topology.HwType;

import java.util.List;

/**
 * The agent's settings after merging every source ({@link OptionsParser}). Immutable.
 *
 * @param enabled    false: the agent installs nothing
 * @param strict     true: a bad option stops the JVM instead of disabling the agent
 * @param policy     {@code split-at}/{@code split} and {@code color}: the policy of pools no rule or annotation names
 * @param pools      thread-name globs naming the pools to pin; empty = every application pool
 * @param commonPool pin the common ForkJoinPool too
 * @param bind       on, off (hooks and bookkeeping only) or dry-run (place and report, never bind)
 * @param topology   a synthetic spec or an hwloc XML file used instead of the live machine; null = live
 * @param verbose    one stderr line per pinned thread
 * @param report     a JSON report written at exit ({@code %p} in it: the process id); null = none
 * @param node       several JVMs on one node: local rank, claims, quota
 * @param rebalance  load-proportional re-splits of the JVM scope among pinned pools; null = off (the default: not even its class is loaded)
 * @param oversubscribe pin workers one per piece even where a piece gets more workers than it has PUs (default: those share the pool scope)
 * @param carriers   where the virtual-thread scheduler's carriers are bound, all to one scope: {@code jvm} or {@code TYPE:N}; null = not bound (the default)
 * @param exclusive  pools no rule or annotation names get cores of their own (DESIGN.md §7.2); default false
 * @param vmThreads  whether the JVM's own threads (GC, JIT, VM) are kept off exclusive cores too ({@code apart}, the default) or may run there ({@code share})
 * @param memory     where the new pages of pools no rule or annotation names go (DESIGN.md §7.3); default {@code local}, nothing changed
 */
public record Options(boolean enabled, boolean strict, PlacementSpec policy, List<String> pools,
                      boolean commonPool, Bind bind, String topology, boolean verbose, String report,
                      NodeOptions node, RebalanceOptions rebalance, boolean oversubscribe, String carriers,
                      boolean exclusive, VmThreads vmThreads, Memory memory) {

    public enum Bind {
        ON, OFF, DRY_RUN;

        /** {@code on}, {@code off}, {@code dry-run}: the option's word. */
        public String word() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }

    /** {@code exclusive-vm-threads}: the JVM's own threads beside exclusive workers, or kept off their cores. */
    public enum VmThreads {
        SHARE, APART;

        public String word() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * The report's file for the JVM {@code pid}: {@code %p} becomes the process id, so that one
     * option (say, in {@code JAVA_TOOL_OPTIONS}) gives each JVM of a command a report of its own.
     */
    public String report(long pid) {
        return report == null ? null : report.replace("%p", Long.toString(pid));
    }

    public static Options defaults() {
        return new Options(true, false, PlacementSpec.splitAt(HwType.CORE).color(Color.SPREAD), List.of(), false, Bind.ON,
                null, false, null, NodeOptions.defaults(), null, false, null, false, VmThreads.APART, Memory.LOCAL);
    }
}
