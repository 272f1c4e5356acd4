package io.qv4j.split;

import io.qv4j.topology.HwType;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.Topology;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * A topology's PUs in logical order with the ancestors the split rules look at (DESIGN.md §4.1).
 * The engine works on sorted arrays of logical PU indexes instead of {@link CpuSet}s: set
 * operations on cpusets clone bit sets, which makes per-piece work quadratic on big machines.
 * Built once per topology and cached (topologies are immutable).
 */
public final class LogicalPus {

    /** The types whose boundaries a cut is scored by, outermost first, with their levels. */
    private static final HwType[] BOUNDARY_TYPES = {HwType.PACKAGE, HwType.DIE, HwType.NUMANODE, HwType.L3, HwType.L2, HwType.CORE};
    // DESIGN lists package 5, NUMA 4, L3 3, L2 2, core 1; a die sits between package and NUMA
    // node and gets the NUMA level (on real machines the two boundaries coincide).
    private static final int[] BOUNDARY_LEVELS = {5, 4, 4, 3, 2, 1};

    private static final Map<Topology, LogicalPus> CACHE = Collections.synchronizedMap(new WeakHashMap<>());

    private final HwObject[] pu;        // by logical index
    private final int[] os;             // OS index by logical index
    private final int[] logicalOfOs;    // logical index by OS index, -1 when not a PU
    private final int[][] ancestor;     // [boundary type][logical PU] -> logical index of the ancestor, -1 if none

    private LogicalPus(Topology topology) {
        int n = topology.pus().size();
        pu = new HwObject[n];
        os = new int[n];
        ancestor = new int[BOUNDARY_TYPES.length][n];
        int[] current = new int[BOUNDARY_TYPES.length];
        Arrays.fill(current, -1);
        walk(topology.root(), current);
        logicalOfOs = new int[topology.online().last() + 1];
        Arrays.fill(logicalOfOs, -1);
        for (int l = 0; l < n; l++) logicalOfOs[os[l]] = l;
    }

    private void walk(HwObject o, int[] current) {
        int slot = slot(o.type());
        int saved = slot >= 0 ? current[slot] : 0;
        if (slot >= 0) current[slot] = o.logicalIndex();
        if (o.type() == HwType.PU) {
            int l = o.logicalIndex();
            pu[l] = o;
            os[l] = o.osIndex();
            for (int k = 0; k < current.length; k++) ancestor[k][l] = current[k];
        }
        for (HwObject c : o.children()) walk(c, current);
        if (slot >= 0) current[slot] = saved;
    }

    private static int slot(HwType t) {
        for (int k = 0; k < BOUNDARY_TYPES.length; k++) if (BOUNDARY_TYPES[k] == t) return k;
        return -1;
    }

    public static LogicalPus of(Topology topology) {
        LogicalPus known = CACHE.get(topology);
        if (known != null) return known;
        LogicalPus made = new LogicalPus(topology); // two racing threads may both build it: same value
        CACHE.put(topology, made);
        return made;
    }

    public int size() {
        return pu.length;
    }

    public HwObject pu(int logical) {
        return pu[logical];
    }

    public int os(int logical) {
        return os[logical];
    }

    /** The core a PU belongs to; a PU without a core object counts as a core of its own. */
    public int core(int logical) {
        int c = ancestor[ancestor.length - 1][logical];
        return c >= 0 ? c : -2 - logical;
    }

    /**
     * The level of the highest hardware boundary between two PUs: package 5, die or NUMA node 4,
     * L3 3, L2 2, core 1, two PUs of one core 0 (DESIGN.md §4.1).
     */
    public int boundaryLevel(int a, int b) {
        for (int k = 0; k < BOUNDARY_TYPES.length - 1; k++) {
            if (ancestor[k][a] != ancestor[k][b]) return BOUNDARY_LEVELS[k];
        }
        return core(a) != core(b) ? 1 : 0;
    }

    /** The PUs of a cpuset as sorted logical indexes (PUs the topology does not have are ignored). */
    public int[] logical(CpuSet cpus) {
        BitSet marks = new BitSet(pu.length);
        for (int p = cpus.first(); p >= 0 && p < logicalOfOs.length; p = cpus.next(p + 1)) {
            if (logicalOfOs[p] >= 0) marks.set(logicalOfOs[p]);
        }
        return CpuSet.of(marks).toArray(); // a loop, not a stream: no bootstrap on the agent's first plan
    }

    /** The cpuset of {@code logical[from..to)}. */
    public CpuSet cpuset(int[] logical, int from, int to) {
        int[] o = new int[to - from];
        for (int i = from; i < to; i++) o[i - from] = os[logical[i]];
        return CpuSet.of(o);
    }

    public CpuSet cpuset(int[] logical) {
        return cpuset(logical, 0, logical.length);
    }

    /** The object of {@code type} that holds a PU (the PU itself for {@link HwType#PU}), or null. */
    public HwObject objectOf(int logical, HwType type) {
        HwObject p = pu[logical];
        return type == HwType.PU ? p : p.ancestor(type);
    }

    /** Objects from the root down to the smallest one holding both PUs (their lowest common ancestor). */
    public HwObject[] pathToCommonAncestor(int a, int b) {
        HwObject x = pu[a], y = pu[b];
        int dx = depth(x), dy = depth(y);
        while (dx > dy) { x = x.parent(); dx--; }
        while (dy > dx) { y = y.parent(); dy--; }
        while (x != y) { x = x.parent(); y = y.parent(); dx--; }
        HwObject[] path = new HwObject[dx + 1];
        for (HwObject o = x; o != null; o = o.parent()) path[dx--] = o;
        return path;
    }

    private static int depth(HwObject o) {
        int d = 0;
        for (HwObject p = o.parent(); p != null; p = p.parent()) d++;
        return d;
    }
}
