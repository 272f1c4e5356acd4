package io.qv4j.topology;


import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Assembles a {@link Topology} from flat facts, the way every source (sysfs, hwloc XML, synthetic
 * spec, OSHI) reports them: "there is an L2 covering PUs 0,8". Nesting is derived from cpusets,
 * as hwloc does: each object goes under the smallest object that contains it; when two objects
 * cover the same PUs the outer type (declaration order of {@link HwType}) is the parent.
 *
 * <p>Sources may report an object once per PU that sees it (caches in sysfs): duplicates of one
 * type and cpuset are merged. Cpusets are cut to the online set and objects left without PUs are
 * dropped, except NUMA nodes, which stay in {@link Topology#numaNodes()} as memory-only nodes.
 */
public final class TopologyBuilder {

    private record Pending(HwType type, int osIndex, CpuSet cpuset, long memoryBytes) {
    }

    private final String source;
    private CpuSet online;
    private CpuSet allowed;
    private CpuSet isolated = CpuSet.empty();
    private CpuSet tickless = CpuSet.empty();
    private final List<Pending> objects = new ArrayList<>();
    private final CpuKinds kinds = new CpuKinds();
    private final List<Device> devices = new ArrayList<>();
    private final Map<String, String> info = new LinkedHashMap<>();

    public TopologyBuilder(String source) {
        this.source = Objects.requireNonNull(source);
    }

    /** The online PUs; each gets a PU object. Required. */
    public TopologyBuilder online(CpuSet online) {
        this.online = online;
        return this;
    }

    /** The PUs this process may use; defaults to all online PUs. */
    public TopologyBuilder allowed(CpuSet allowed) {
        this.allowed = allowed;
        return this;
    }

    /** The PUs the kernel isolates from its balancing ({@link Topology#isolated()}); none by default. */
    public TopologyBuilder isolated(CpuSet isolated) {
        this.isolated = isolated;
        return this;
    }

    /** The PUs that may run without the tick ({@link Topology#tickless()}); none by default. */
    public TopologyBuilder tickless(CpuSet tickless) {
        this.tickless = tickless;
        return this;
    }

    /** An object of a CPU-tree type other than PU and MACHINE (those are made from {@link #online}). */
    public TopologyBuilder add(HwType type, int osIndex, CpuSet cpuset) {
        if (type.isDevice() || type == HwType.PU || type == HwType.MACHINE) {
            throw new IllegalArgumentException("add() takes tree objects between machine and PU, not " + type);
        }
        if (type == HwType.NUMANODE) return numaNode(osIndex, cpuset, 0);
        objects.add(new Pending(type, osIndex, cpuset, 0));
        return this;
    }

    /** A cache (L1, L2, L3) of a known size in bytes (0: unknown), as {@link #add} otherwise. */
    public TopologyBuilder cache(HwType level, int osIndex, CpuSet cpuset, long sizeBytes) {
        if (!level.isCache()) {
            throw new IllegalArgumentException("cache() takes L1, L2 or L3, not " + level);
        }
        objects.add(new Pending(level, osIndex, cpuset, Math.max(sizeBytes, 0)));
        return this;
    }

    public TopologyBuilder numaNode(int osIndex, CpuSet cpuset, long memoryBytes) {
        objects.add(new Pending(HwType.NUMANODE, osIndex, cpuset, memoryBytes));
        return this;
    }

    /**
     * PUs a source found alike (one frequency, one capacity, one core type), with what it found as
     * hwloc names it, and the efficiency rank it fixes (-1: none). Merged into CPU kinds and
     * ranked as hwloc does ({@link CpuKinds}); sources register in hwloc's order.
     */
    public TopologyBuilder cpuKind(CpuSet cpus, Map<String, String> info, int forcedEfficiency) {
        kinds.register(cpus, info, forcedEfficiency);
        return this;
    }

    public TopologyBuilder device(Device device) {
        devices.add(device);
        return this;
    }

    public TopologyBuilder info(String key, String value) {
        if (value != null && !value.isBlank()) info.put(key, value.strip());
        return this;
    }

    public Topology build() {
        if (online == null || online.isEmpty()) {
            throw new IllegalArgumentException(source + ": no online PUs");
        }
        CpuSet allowedHere = allowed == null ? online : allowed.and(online);
        if (allowedHere.isEmpty()) {
            throw new IllegalArgumentException(source + ": none of the allowed PUs " + allowed + " is online (" + online + ")");
        }

        // Merge duplicates and cut to the online set.
        Map<String, HwObject> unique = new LinkedHashMap<>();
        List<HwObject> numa = new ArrayList<>();
        for (Pending p : objects) {
            CpuSet cpus = p.cpuset.and(online);
            if (p.type == HwType.NUMANODE) {
                if (!hasOsIndex(numa, p.osIndex)) numa.add(new HwObject(HwType.NUMANODE, p.osIndex, cpus, p.memoryBytes, 0));
                continue;
            }
            if (cpus.isEmpty()) continue;
            String key = p.type + "/" + cpus;
            HwObject seen = unique.get(key);
            if (seen == null || (p.osIndex >= 0 && p.osIndex < seen.osIndex())) {
                long size = p.memoryBytes > 0 || seen == null ? p.memoryBytes : seen.cacheSize();
                unique.put(key, new HwObject(p.type, p.osIndex, cpus, size, 0));
            }
        }
        numa.sort(BY_OS_INDEX);
        // Only the first NUMA node of each distinct cpuset is a tree object; the others share its PUs.
        Map<CpuSet, HwObject> numaInTree = new LinkedHashMap<>();
        for (HwObject n : numa) {
            if (!n.cpuset().isEmpty()) numaInTree.putIfAbsent(n.cpuset(), n);
        }

        List<HwObject> all = new ArrayList<>(unique.values());
        all.addAll(numaInTree.values());
        List<CpuKind> cpuKinds = kinds.ranked(online);
        int[] efficiency = new int[online.last() + 1];
        for (CpuKind k : cpuKinds) {
            for (int pu = k.cpus().first(); pu >= 0; pu = k.cpus().next(pu + 1)) efficiency[pu] = Math.max(k.efficiency(), 0);
        }
        for (int pu = online.first(); pu >= 0; pu = online.next(pu + 1)) {
            all.add(new HwObject(HwType.PU, pu, CpuSet.of(pu), 0, efficiency[pu]));
        }
        all.sort(OUTERMOST_FIRST);

        HwObject root = new HwObject(HwType.MACHINE, 0, online, 0, 0);
        HwObject[] deepest = new HwObject[online.last() + 1];
        for (HwObject o : all) {
            HwObject parent = deepest[o.cpuset().first()];
            if (parent == null) parent = root;
            // Objects that straddle a boundary (a NUMA node across two packages) go under the
            // smallest object that does contain them.
            while (parent != root && !parent.cpuset().containsAll(o.cpuset())) parent = parent.parent;
            o.parent = parent;
            parent.children.add(o);
            for (int pu = o.cpuset().first(); pu >= 0; pu = o.cpuset().next(pu + 1)) deepest[pu] = o;
        }
        sortChildren(root);
        root.freeze();

        List<Device> sortedDevices = new ArrayList<>();
        for (Device d : devices) {
            CpuSet loc = d.locality().and(online);
            sortedDevices.add(new Device(d.type(), d.pci(), d.name(), loc.isEmpty() ? online : loc));
        }
        sortedDevices.sort(DEVICE_ORDER);
        return new Topology(root, online, allowedHere, isolated, tickless, numa, sortedDevices, cpuKinds, info, source);
    }

    private static void sortChildren(HwObject o) {
        o.children.sort(LOGICAL_ORDER);
        for (HwObject c : o.children) sortChildren(c);
    }

    private static boolean hasOsIndex(List<HwObject> objects, int osIndex) {
        for (HwObject o : objects) if (o.osIndex() == osIndex) return true;
        return false;
    }

    // Comparators as classes, not lambdas: discovery runs in the agent's premain, where each
    // first lambda or method reference costs a bootstrap in a cold JVM.

    private static final Comparator<HwObject> BY_OS_INDEX = new Comparator<>() {
        @Override
        public int compare(HwObject a, HwObject b) {
            return Integer.compare(a.osIndex(), b.osIndex());
        }
    };

    /** Largest cpuset first; for equal cpusets the outer type first; then by PUs. */
    private static final Comparator<HwObject> OUTERMOST_FIRST = new Comparator<>() {
        @Override
        public int compare(HwObject a, HwObject b) {
            int c = Integer.compare(b.cpuset().cardinality(), a.cpuset().cardinality());
            if (c == 0) c = a.type().compareTo(b.type());
            return c != 0 ? c : a.cpuset().compareTo(b.cpuset());
        }
    };

    /** Siblings by lowest PU (then the outer type first). */
    private static final Comparator<HwObject> LOGICAL_ORDER = new Comparator<>() {
        @Override
        public int compare(HwObject a, HwObject b) {
            int c = a.cpuset().compareTo(b.cpuset());
            return c != 0 ? c : a.type().compareTo(b.type());
        }
    };

    /** Interface names with their trailing number compared as a number: {@code nic2} before {@code nic10}. */
    static int byName(String a, String b) {
        int i = digitsFrom(a), j = digitsFrom(b);
        int c = a.substring(0, i).compareTo(b.substring(0, j));
        if (c != 0 || i == a.length() || j == b.length() || a.length() - i > 9 || b.length() - j > 9) {
            return c != 0 ? c : a.compareTo(b);
        }
        c = Integer.compare(Integer.parseInt(a.substring(i)), Integer.parseInt(b.substring(j)));
        return c != 0 ? c : a.compareTo(b);
    }

    private static int digitsFrom(String s) {
        int i = s.length();
        while (i > 0 && Character.isDigit(s.charAt(i - 1))) i--;
        return i;
    }

    /** GPUs then NICs; GPUs by PCI id, NICs by name (trailing numbers in numeric order). */
    private static final Comparator<Device> DEVICE_ORDER = new Comparator<>() {
        @Override
        public int compare(Device a, Device b) {
            int c = a.type().compareTo(b.type());
            if (c == 0) c = a.type() == HwType.NIC ? byName(a.name(), b.name()) : a.pci().compareTo(b.pci());
            return c != 0 ? c : a.pci().compareTo(b.pci());
        }
    };
}
