package io.qv4j.topology;


import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A machine: one tree of typed objects (machine → package → die → NUMA node → L3 → L2 → L1 →
 * core → PU, nesting decided by cpusets) plus PCI devices with their locality, the online set and
 * the allowed set (what this process may run on). Immutable; made by {@link TopologyBuilder}.
 *
 * <p>Everything else is derived from the tree: the per-type lists are its objects in logical
 * (depth-first, lowest PU first) order.
 */
public final class Topology {

    private final HwObject root;
    private final CpuSet online;
    private final CpuSet allowed;
    private final CpuSet isolated;
    private final CpuSet tickless;
    private final List<HwObject> numaNodes;
    private final List<Device> devices;
    private final List<CpuKind> cpuKinds;
    private final Map<String, String> info;
    private final String source;
    private final Map<HwType, List<HwObject>> byType = new EnumMap<>(HwType.class);
    private final HwObject[] puByOsIndex;

    Topology(HwObject root, CpuSet online, CpuSet allowed, CpuSet isolated, CpuSet tickless, List<HwObject> numaNodes,
             List<Device> devices, List<CpuKind> cpuKinds, Map<String, String> info, String source) {
        this.root = root;
        this.online = online;
        this.allowed = allowed;
        this.isolated = isolated.and(online);
        this.tickless = tickless.and(online);
        this.numaNodes = List.copyOf(numaNodes);
        this.devices = List.copyOf(devices);
        this.cpuKinds = List.copyOf(cpuKinds);
        this.info = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(info));
        this.source = source;
        for (HwType t : HwType.values()) byType.put(t, new ArrayList<>());
        collect(root);
        for (HwType t : HwType.values()) byType.put(t, Collections.unmodifiableList(byType.get(t)));
        puByOsIndex = new HwObject[Math.max(online.last() + 1, 0)];
        for (HwObject pu : byType.get(HwType.PU)) puByOsIndex[pu.osIndex()] = pu;
    }

    private void collect(HwObject o) {
        List<HwObject> list = byType.get(o.type());
        o.logicalIndex = list.size();
        list.add(o);
        for (HwObject c : o.children()) collect(c);
    }

    public HwObject root() {
        return root;
    }

    /** PUs the OS has online. Every object's cpuset is a subset. */
    public CpuSet online() {
        return online;
    }

    /** PUs this process may run on (affinity ∩ cgroup cpuset ∩ online). Never handed out beyond. */
    public CpuSet allowed() {
        return allowed;
    }

    /**
     * Online PUs the kernel keeps out of its load balancing: {@code isolcpus=} (its domain part)
     * and isolated cgroup v2 cpuset partitions. A thread whose mask holds several of them stays
     * where it first ran. Empty where none (and for topologies from files or specs).
     */
    public CpuSet isolated() {
        return isolated;
    }

    /**
     * Online PUs the kernel may run without the scheduler tick ({@code nohz_full=}) while one task
     * runs there. Shown, not planned round: HPC nodes often set it on all but one PU, and the
     * kernel still balances over them.
     */
    public CpuSet tickless() {
        return tickless;
    }

    /** The same machine with these PUs isolated and tickless (read apart from the tree: they change without a reboot). */
    public Topology withIsolation(CpuSet isolated, CpuSet tickless) {
        return new Topology(root, online, allowed, isolated, tickless, numaNodes, devices, cpuKinds, info, source);
    }

    /**
     * The objects of a CPU-tree type in logical order (empty for device types: see
     * {@link #devices(HwType)}). NUMA nodes here are those in the tree: nodes with PUs, one per
     * distinct cpuset; {@link #numaNodes()} has them all.
     */
    public List<HwObject> objects(HwType type) {
        return byType.get(type);
    }

    /** PUs in logical order. */
    public List<HwObject> pus() {
        return byType.get(HwType.PU);
    }

    /** The PU with this OS index, or null when it is not online. */
    public HwObject pu(int osIndex) {
        return osIndex >= 0 && osIndex < puByOsIndex.length ? puByOsIndex[osIndex] : null;
    }

    /**
     * Every NUMA node by OS index, including memory-only nodes (empty cpuset: never given threads)
     * and nodes that share their PUs with another node (e.g. MCDRAM beside DDR).
     */
    public List<HwObject> numaNodes() {
        return numaNodes;
    }

    /** GPUs then NICs, each sorted by PCI id (NICs by name). */
    public List<Device> devices() {
        return devices;
    }

    public List<Device> devices(HwType type) {
        return Device.ofType(devices, type);
    }

    /**
     * The CPU kinds, as hwloc lists them ({@code lstopo --cpukinds}): by efficiency where they are
     * ranked, else as found; empty where the source tells none (a synthetic spec without kinds,
     * a machine whose sysfs has no frequencies or capacities). Their cpusets hold online PUs,
     * allowed or not; a PU may be of no kind.
     */
    public List<CpuKind> cpuKinds() {
        return cpuKinds;
    }

    /** Whether the machine has more than one CPU kind (P- and E-cores, big.LITTLE). */
    public boolean hybrid() {
        return cpuKinds.size() > 1;
    }

    /**
     * Descriptive facts (processor name, vendor, memory, source): for people, not for placement.
     * Readers that can get caches several ways say which in {@code caches.source} ({@code sysfs},
     * {@code cpuid}, {@code none}) and how, or why there are none, in {@code caches.note}.
     */
    public Map<String, String> info() {
        return info;
    }

    /** The same machine with more descriptive facts (existing keys are kept). */
    public Topology withInfo(Map<String, String> more) {
        Map<String, String> merged = new java.util.LinkedHashMap<>(more);
        merged.putAll(info);
        merged.values().removeIf(v -> v == null || v.isBlank());
        return new Topology(root, online, allowed, isolated, tickless, numaNodes, devices, cpuKinds, merged, source);
    }

    /** Where this topology came from: {@code live}, a directory, a file or a spec. */
    public String source() {
        return source;
    }

    @Override
    public String toString() {
        return "topology[" + source + " pus:" + online + " allowed:" + allowed + "]";
    }

    /**
     * A name for a cpuset: {@code core 3 (pu 6)} for a PU alone on its core, else the innermost
     * object that is exactly this cpuset ({@code l3 1 (pus 8-15)}), else {@code pus 0,5}; on a
     * machine of several CPU kinds followed by the kind all its PUs are of ({@code core 6 (pu 12) [kind 0]}).
     */
    public String label(CpuSet cpus) {
        String name = name(cpus);
        if (!hybrid() || cpus.isEmpty()) return name;
        for (CpuKind k : cpuKinds) if (k.cpus().containsAll(cpus)) return name + " [kind " + k.efficiency() + "]";
        return name;
    }

    private String name(CpuSet cpus) {
        if (cpus.cardinality() == 1) {
            HwObject pu = pu(cpus.first());
            HwObject core = pu == null ? null : pu.ancestor(HwType.CORE);
            if (core != null && core.cpuset().equals(cpus)) return "core " + core.logicalIndex() + " (pu " + cpus + ")";
            return "pu " + cpus;
        }
        HwType[] innermostFirst = {HwType.CORE, HwType.L2, HwType.L3, HwType.NUMANODE, HwType.DIE, HwType.PACKAGE, HwType.MACHINE};
        for (HwType type : innermostFirst) {
            for (HwObject o : objects(type)) {
                if (o.cpuset().equals(cpus)) return type.shortName() + " " + o.logicalIndex() + " (pus " + cpus + ")";
            }
        }
        return "pus " + cpus;
    }
}
