package io.qv4j.topology;


import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One object of the CPU tree (machine, package, die, NUMA node, cache, core, PU). Its cpuset holds
 * the online PUs below it, allowed or not. Built only by {@link TopologyBuilder}; immutable once
 * the topology is built.
 */
public final class HwObject {

    private final HwType type;
    private final int osIndex;
    private final CpuSet cpuset;
    private final long memoryBytes;
    private final int efficiency;
    HwObject parent;
    int logicalIndex;
    List<HwObject> children = new ArrayList<>();

    HwObject(HwType type, int osIndex, CpuSet cpuset, long memoryBytes, int efficiency) {
        this.type = type;
        this.osIndex = osIndex;
        this.cpuset = cpuset;
        this.memoryBytes = memoryBytes;
        this.efficiency = efficiency;
    }

    public HwType type() {
        return type;
    }

    /** The OS index (PU number, package id, NUMA node number); -1 where the OS gives none. */
    public int osIndex() {
        return osIndex;
    }

    /** The position among objects of the same type in logical (depth-first) order. */
    public int logicalIndex() {
        return logicalIndex;
    }

    public CpuSet cpuset() {
        return cpuset;
    }

    /** Local memory of a NUMA node in bytes; 0 for other objects or when unknown. */
    public long memoryBytes() {
        return type == HwType.NUMANODE ? memoryBytes : 0;
    }

    /** The size of a cache (L1, L2, L3) in bytes; 0 for other objects or when unknown. */
    public long cacheSize() {
        return type.isCache() ? memoryBytes : 0;
    }

    /**
     * The efficiency of a PU's CPU kind ({@link Topology#cpuKinds()}): 0 the most energy-efficient,
     * higher faster (hybrid machines' performance cores); 0 when all are alike, unknown or unranked,
     * and for other objects.
     */
    public int efficiency() {
        return efficiency;
    }

    /** The parent, or null for the machine. */
    public HwObject parent() {
        return parent;
    }

    /** Children in logical order (by lowest PU). */
    public List<HwObject> children() {
        return children;
    }

    /** The nearest ancestor of the given type, or null. */
    public HwObject ancestor(HwType t) {
        for (HwObject o = parent; o != null; o = o.parent) {
            if (o.type == t) return o;
        }
        return null;
    }

    void freeze() {
        children = Collections.unmodifiableList(children);
        for (HwObject c : children) c.freeze();
    }

    @Override
    public String toString() {
        return type.shortName() + (osIndex >= 0 ? "#" + osIndex : "") + "[" + cpuset + "]";
    }
}
