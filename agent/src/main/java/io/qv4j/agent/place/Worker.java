package io.qv4j.agent.place;

import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;

/** One worker thread of a {@link Pool}: its slot and where it went. Changed under the registry's lock. */
public final class Worker {

    final String name;
    final Pool pool;
    int slot = -1;
    CpuSet cpuset;
    /** The machine its piece is named in; set with the piece, the words worked out only when asked (a placement formats nothing). */
    Topology topology;
    private String label;          // piece(), kept for the cpuset and appBound it was made for
    private CpuSet labelled;
    private boolean labelledAppBound;
    boolean bound;
    boolean exited;
    /** Bound by the application before qv4j placed it: left where it is. */
    boolean appBound;
    long tid = -1;
    /** What placing this worker cost on its own thread (bookkeeping + bind), for the report and benchmarks. */
    long startNanos = -1;
    /** How often a rebalance moved it. */
    int rebinds;
    /** How often the neighbours watcher moved it off a contended PU. */
    int moves;
    /** The watcher's period when it last moved it; -1: never. */
    long movedAt = -1;
    /** The NUMA nodes its memory policy names (DESIGN.md §7.3); null: the kernel's default. Written by the worker itself. */
    volatile CpuSet memoryNodes;
    /** The share of the watcher's last period it waited for its PU; -1: not measured. Written by the watcher alone, read by the report. */
    volatile double waited = -1;

    Worker(String name, Pool pool) {
        this.name = name;
        this.pool = pool;
    }

    public String name() {
        return name;
    }

    public long tid() {
        return tid;
    }

    public int slot() {
        return slot;
    }

    public CpuSet cpuset() {
        return cpuset;
    }

    /** {@code core 3 (pu 6)}: the piece in words; null before it has one. Kept until the piece changes: the report asks at every publish. */
    public synchronized String piece() {
        Topology t = topology;
        CpuSet c = cpuset;
        if (t == null || c == null) return null;
        if (c != labelled || appBound != labelledAppBound) {
            label = appBound ? t.label(c) + " (bound by the application)" : t.label(c);
            labelled = c;
            labelledAppBound = appBound;
        }
        return label;
    }

    public boolean bound() {
        return bound;
    }

    public boolean exited() {
        return exited;
    }

    public long startNanos() {
        return startNanos;
    }

    public int rebinds() {
        return rebinds;
    }

    public int moves() {
        return moves;
    }

    /** The NUMA nodes its new pages go to ({@code memory=bind} or {@code interleave}); null: where first touched. */
    public CpuSet memoryNodes() {
        return memoryNodes;
    }

    /** The share of the last watched period this worker waited for its PU, 0 to 1; -1 when not watched. */
    public double waited() {
        return waited;
    }
}
