package io.qv4j.topology.linux;

import io.qv4j.topology.HwType;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Device;
import io.qv4j.topology.Topology;
import io.qv4j.topology.TopologyBuilder;
import io.qv4j.topology.TopologyException;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a Linux machine from sysfs and procfs: the live machine (root {@code /}) or a dump of one
 * (a file-system root holding {@code sys/} and {@code proc/}), through the same code.
 *
 * <p>Live discovery is on the agent's start-up path, so every fact is read once: an object shared
 * by several PUs (a package, a core, a cache) is reported by its lowest online PU only, and for
 * attributes that kernels spell several ways the spelling found first is tried first next time.
 *
 * <p>Where a live machine's sysfs has no cache directories (some cloud VMs), the caches come from
 * x86 CPUID ({@link CpuidCaches}) when the caller gives a {@link Cpuid}. The topology's info says
 * where the caches came from: {@code caches.source} is {@code sysfs}, {@code cpuid} or
 * {@code none}, and {@code caches.note} says how, or why there are none.
 */
public final class SysfsReader {

    private static final String CPU_DIR = "sys/devices/system/cpu";

    private final FsRoot fs;
    private final boolean live;
    private final TopologyBuilder builder;
    private final Path cpuDir;
    private final Map<Integer, CpuSet> numaCpus = new HashMap<>();
    private final Cpuid cpuid;
    private CpuSet online;
    private boolean sysfsCaches;

    private SysfsReader(Path root, boolean live, Cpuid cpuid) {
        this.fs = new FsRoot(root);
        this.live = live;
        this.cpuid = cpuid;
        this.builder = new TopologyBuilder(live ? "live" : root.toString());
        this.cpuDir = fs.path(CPU_DIR);
        if (!fs.isDirectory(cpuDir)) {
            throw new TopologyException(root + ": not a Linux sysfs root: no " + CPU_DIR);
        }
    }

    /** The machine this process runs on; the allowed set is this thread's affinity ∩ the cgroup cpuset. No CPUID. */
    public static Topology live() {
        return live(null);
    }

    /**
     * The machine this process runs on, with its caches from {@code cpuid} (null: none) where
     * sysfs has no cache directories; {@code cpuid} is not touched otherwise.
     */
    public static Topology live(Cpuid cpuid) {
        return new SysfsReader(Path.of("/"), true, cpuid).scan();
    }

    /** A dump under {@code root}; the allowed set comes from {@code proc/self/status} and the cgroup cpuset. */
    public static Topology read(Path root) {
        return new SysfsReader(root, false, null).scan();
    }

    /** Tests: {@code root} read as the live machine (thread-self, CPUID), e.g. a copy of it with parts hidden. */
    static Topology readAsLive(Path root, Cpuid cpuid) {
        return new SysfsReader(root, true, cpuid).scan();
    }

    private Topology scan() {
        online = readOnline();
        builder.online(online);
        readCpus();
        readNumaNodes();
        CpuSet allowed = allowed(fs, live, online);
        builder.allowed(allowed);
        builder.isolated(isolated(fs)).tickless(tickless(fs));
        if (sysfsCaches) builder.info("caches.source", "sysfs");
        else cachesWithoutSysfs(allowed);
        for (Device d : new PciDevices(fs, online, numaCpus).read()) builder.device(d);
        builder.info("cpu.model", readCpuModel());
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw new TopologyException(e.getMessage(), e);
        }
    }

    // ---- PUs -------------------------------------------------------------------------------

    private CpuSet readOnline() {
        CpuSet cpus = fs.readList(cpuDir.resolve("online"));
        if (cpus == null) {
            // Old kernels have no cpu/online: a CPU is online unless its own online file says 0
            // (the boot CPU often has no such file at all).
            BitSet b = new BitSet();
            for (String name : fs.list(cpuDir)) {
                int n = cpuNumber(name);
                if (n >= 0 && !"0".equals(fs.read(cpuDir.resolve(name).resolve("online")))) b.set(n);
            }
            cpus = CpuSet.of(b);
        }
        if (cpus.isEmpty()) throw new TopologyException(fs + ": no online CPU in " + cpuDir);
        return cpus;
    }

    /** "cpuN", without an invokedynamic string concatenation (its first use costs milliseconds). */
    private static String cpuName(int pu) {
        return "cpu".concat(Integer.toString(pu));
    }

    /** N for a directory named cpuN, else -1. */
    private static int cpuNumber(String name) {
        return name.startsWith("cpu") ? number(name, 3) : -1;
    }

    private void readCpus() {
        CpusetAttr packageCpus = new CpusetAttr(fs, "package_cpus_list", "core_siblings_list", "package_cpus", "core_siblings");
        CpusetAttr coreCpus = new CpusetAttr(fs, "core_cpus_list", "thread_siblings_list", "core_cpus", "thread_siblings");
        // The map first for caches: the kernel prints both files from one mask, but the
        // 64amd64-4s2n4ca2co dump has lists that lose the L2 shared by a Bulldozer compute unit,
        // and hwloc, whose answers the fixtures hold, reads the map.
        CpusetAttr sharedCpus = new CpusetAttr(fs, "shared_cpu_map", "shared_cpu_list");
        int[] coreIds = new int[online.last() + 1];
        Arrays.fill(coreIds, Integer.MIN_VALUE);
        // (first PU of the package, die_id) -> PUs; dies only matter where a package has several
        Map<Long, BitSet> dies = new TreeMap<>();
        boolean hasDieId = true;
        SysfsCpuKinds kinds = new SysfsCpuKinds(fs);

        for (int pu = online.first(); pu >= 0; pu = online.next(pu + 1)) {
            Path cpu = cpuDir.resolve(cpuName(pu));
            Path topo = cpu.resolve("topology");

            CpuSet pkg = packageCpus.read(topo);
            if (pkg != null) {
                pkg = pkg.or(CpuSet.of(pu)).and(online);
                if (pkg.first() == pu) builder.add(HwType.PACKAGE, fs.readInt(topo.resolve("physical_package_id"), -1), pkg);
                if (hasDieId) {
                    int die = fs.readInt(topo.resolve("die_id"), Integer.MIN_VALUE);
                    hasDieId = die != Integer.MIN_VALUE; // kernels before 5.2 have none: stop asking
                    if (!hasDieId) {
                        dies.clear();
                    } else {
                        long key = ((long) pkg.first() << 32) | (die & 0xffffffffL);
                        BitSet pus = dies.get(key);
                        if (pus == null) dies.put(key, pus = new BitSet());
                        pus.set(pu);
                    }
                }
            }

            CpuSet siblings = coreCpus.read(topo);
            if (siblings != null) {
                siblings = siblings.or(CpuSet.of(pu)).and(online);
                int coreId = coreId(coreIds, topo, pu);
                CpuSet core = siblings.cardinality() == 1 ? siblings : sameCoreId(siblings, coreIds, coreId);
                if (core.first() == pu) builder.add(HwType.CORE, coreId, core);
            }

            readCaches(cpu, pu, sharedCpus);
            kinds.read(cpu, pu);
        }
        addDies(dies);
        kinds.addTo(builder);
    }

    /**
     * The thread siblings that are really one core. AMD Bulldozer compute units report their two
     * cores as thread siblings with different core_ids; hwloc splits them the same way.
     */
    private CpuSet sameCoreId(CpuSet siblings, int[] coreIds, int coreId) {
        BitSet b = new BitSet();
        for (int s = siblings.first(); s >= 0; s = siblings.next(s + 1)) {
            if (coreId(coreIds, cpuDir.resolve(cpuName(s)).resolve("topology"), s) == coreId) b.set(s);
        }
        return CpuSet.of(b);
    }

    private int coreId(int[] coreIds, Path topo, int pu) {
        if (coreIds[pu] == Integer.MIN_VALUE) coreIds[pu] = fs.readInt(topo.resolve("core_id"), -1);
        return coreIds[pu];
    }

    private void addDies(Map<Long, BitSet> dies) {
        // keys are sorted by package: a package with several dies has two neighbouring keys
        boolean severalInAPackage = false;
        long previousPackage = -1;
        for (long key : dies.keySet()) {
            if (key >>> 32 == previousPackage) severalInAPackage = true;
            previousPackage = key >>> 32;
        }
        if (!severalInAPackage) return; // one die per package: noise
        for (Map.Entry<Long, BitSet> e : dies.entrySet()) {
            builder.add(HwType.DIE, (int) e.getKey().longValue(), CpuSet.of(e.getValue()));
        }
    }

    /** Caches as Linux reports them per PU; each instance is added by the lowest online PU sharing it. */
    private void readCaches(Path cpu, int pu, CpusetAttr sharedCpus) {
        Path cacheDir = cpu.resolve("cache");
        for (String index : fs.list(cacheDir)) {
            if (!index.startsWith("index")) continue;
            sysfsCaches = true;
            Path dir = cacheDir.resolve(index);
            CpuSet shared = sharedCpus.read(dir);
            shared = (shared == null ? CpuSet.of(pu) : shared.or(CpuSet.of(pu))).and(online);
            if (shared.first() != pu) continue;
            int level = fs.readInt(dir.resolve("level"), -1);
            String type = fs.read(dir.resolve("type"));
            if (type == null || !(type.equals("Data") || type.equals("Unified"))) continue; // not instruction caches
            HwType t = level == 1 ? HwType.L1 : level == 2 ? HwType.L2 : level == 3 ? HwType.L3 : null;
            if (t != null) builder.cache(t, fs.readInt(dir.resolve("id"), -1), shared, cacheSize(fs.read(dir.resolve("size"))));
        }
    }

    /** A cache's {@code size} file ({@code 32K}: the kernel writes KiB) in bytes; 0 (unknown) when absent or not of that form. */
    static long cacheSize(String size) {
        if (size == null || size.isEmpty()) return 0;
        int digits = 0;
        while (digits < size.length() && size.charAt(digits) >= '0' && size.charAt(digits) <= '9') digits++;
        if (digits == 0 || digits > 9) return 0; // under 10^9 GiB: no overflow
        long n = Long.parseLong(size.substring(0, digits));
        String unit = size.substring(digits);
        return switch (unit) {
            case "" -> n;
            case "K" -> n << 10;
            case "M" -> n << 20;
            case "G" -> n << 30;
            default -> 0;
        };
    }

    /** No cache directories in sysfs: CPUID on a live x86 machine, else a note saying why there are no caches. */
    private void cachesWithoutSysfs(CpuSet allowed) {
        String none = live ? "sysfs has no cache directories" : fs + " has no cache directories";
        String unavailable = !live ? "CPUID would describe this machine, not the dump"
                : cpuid == null ? "CPUID was not asked for" : cpuid.unavailable();
        if (unavailable != null) {
            builder.info("caches.source", "none");
            builder.info("caches.note", none + " and " + unavailable);
            return;
        }
        CpuidCaches.Result r = CpuidCaches.probe(cpuid, allowed);
        if (r.caches().isEmpty()) {
            builder.info("caches.source", "none");
            builder.info("caches.note", none + " and " + r.note());
            return;
        }
        for (CpuidCaches.Instance c : r.caches()) {
            HwType t = c.level() == 1 ? HwType.L1 : c.level() == 2 ? HwType.L2 : HwType.L3;
            builder.cache(t, -1, c.cpus(), c.size());
        }
        builder.info("caches.source", "cpuid");
        builder.info("caches.note", none + "; read " + r.note());
    }

    // ---- NUMA ------------------------------------------------------------------------------

    private void readNumaNodes() {
        Path nodeDir = fs.path("sys/devices/system/node");
        CpusetAttr nodeCpus = new CpusetAttr(fs, "cpulist", "cpumap");
        boolean any = false;
        for (String name : fs.list(nodeDir)) {
            int os = name.startsWith("node") ? number(name, 4) : -1;
            if (os < 0) continue;
            Path dir = nodeDir.resolve(name);
            CpuSet cpus = nodeCpus.read(dir);
            if (cpus == null) cpus = CpuSet.empty();
            numaCpus.put(os, cpus.and(online));
            builder.numaNode(os, cpus, memTotal(dir.resolve("meminfo")));
            any = true;
        }
        if (!any) {
            // A kernel without NUMA support: one node with all the memory, as hwloc shows it.
            numaCpus.put(0, online);
            builder.numaNode(0, online, memTotal(fs.path("proc/meminfo")));
        }
    }

    /** MemTotal of a (per-node or global) meminfo file, in bytes; 0 when unknown. */
    private long memTotal(Path meminfo) {
        String s = fs.read(meminfo);
        if (s == null) return 0;
        int at = s.indexOf("MemTotal:");
        if (at < 0) return 0;
        int i = at + "MemTotal:".length();
        while (i < s.length() && s.charAt(i) == ' ') i++;
        long kb = 0;
        for (; i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9'; i++) kb = kb * 10 + (s.charAt(i) - '0');
        return kb * 1024;
    }

    /** The decimal number that {@code s} ends with from {@code from} on; -1 when it is not one. */
    private static int number(String s, int from) {
        if (from >= s.length() || s.length() - from > 9) return -1;
        int n = 0;
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') return -1;
            n = n * 10 + (c - '0');
        }
        return n;
    }

    // ---- allowed set -------------------------------------------------------------------------

    /**
     * Live: this thread's affinity ({@code thread-self}, which sched_getaffinity returns), so a
     * JVM started under taskset sees its restriction. A dump records {@code proc/self}. Either way
     * the cgroup cpuset is intersected too: the kernel already applies it to affinity, but a dump
     * may have only the cgroup files, and reading them live costs little.
     */
    private static CpuSet allowed(FsRoot fs, boolean live, CpuSet online) {
        CpuSet allowed = online;
        Path statusFile = fs.path(live ? "proc/thread-self/status" : "proc/self/status");
        String status = fs.read(statusFile);
        if (status == null && live) status = fs.read(statusFile = fs.path("proc/self/status")); // kernels before 3.17
        if (status != null) {
            int at = status.indexOf("Cpus_allowed_list:");
            if (at >= 0) {
                int end = status.indexOf('\n', at);
                String list = status.substring(at + "Cpus_allowed_list:".length(), end < 0 ? status.length() : end);
                allowed = FsRoot.parseList(statusFile, list);
            }
        }
        CpuSet cgroup = CgroupCpuset.read(fs);
        return cgroup == null ? allowed : allowed.and(cgroup);
    }

    // ---- isolation ---------------------------------------------------------------------------

    /**
     * {@code t} with the live machine's isolated and tickless PUs, read now: an isolated cpuset
     * partition can be made or undone without a reboot, so they are not kept with the rest.
     */
    public static Topology withLiveIsolation(Topology t) {
        FsRoot fs = new FsRoot(Path.of("/"));
        return t.withIsolation(isolated(fs), tickless(fs));
    }

    /** {@code isolcpus=} (the kernel's list of CPUs outside its scheduling domains) and isolated cpuset partitions. */
    private static CpuSet isolated(FsRoot fs) {
        CpuSet partitions;
        try {
            partitions = CgroupCpuset.isolatedPartitions(fs);
        } catch (RuntimeException unreadable) {
            partitions = CpuSet.empty(); // a damaged cgroup file must not cost the whole topology
        }
        return cpulistOrNone(fs, "isolated").or(partitions);
    }

    private static CpuSet tickless(FsRoot fs) {
        return cpulistOrNone(fs, "nohz_full");
    }

    /** A cpulist under the CPU directory; empty where missing or not a list (without {@code nohz_full=} kernels print "(null)"). */
    private static CpuSet cpulistOrNone(FsRoot fs, String name) {
        String s = fs.read(fs.path(CPU_DIR).resolve(name));
        try {
            return s == null ? CpuSet.empty() : CpuSet.parse(s);
        } catch (IllegalArgumentException notAList) {
            return CpuSet.empty();
        }
    }

    // ---- what a reading depends on -----------------------------------------------------------

    /**
     * What a reading of the live machine depends on and may change without a reboot: its
     * {@code fingerprint} (the boot, the online CPUs and NUMA nodes, the PCI devices and network
     * interfaces by name, this thread's {@code allowed} set, whether CPUID may be asked) and that
     * allowed set. Two readings with the same fingerprint give the same topology.
     */
    public record LiveState(String fingerprint, CpuSet allowed) {
    }

    /**
     * The live machine's {@link LiveState}, read from a handful of files; null where the kernel
     * gives no boot id, so that nothing read earlier can be told to still hold.
     */
    public static LiveState liveState(boolean cpuid) {
        return state(new FsRoot(Path.of("/")), cpuid);
    }

    /** The state of a live root ({@code /}, or in tests a copy of one). */
    static LiveState state(FsRoot fs, boolean cpuid) {
        String boot = fs.read(fs.path("proc/sys/kernel/random/boot_id"));
        Path onlineFile = fs.path(CPU_DIR).resolve("online");
        String online = fs.read(onlineFile);
        if (boot == null || boot.isEmpty() || online == null) return null;
        CpuSet allowed = allowed(fs, true, FsRoot.parseList(onlineFile, online));
        StringBuilder f = new StringBuilder(256);
        line(f, "boot", boot);
        line(f, "online", online);
        line(f, "nodes", fs.read(fs.path("sys/devices/system/node/online")));
        line(f, "allowed", allowed.toString());
        line(f, "cpuid", cpuid ? "yes" : "no");
        line(f, "pci", sortedNames(fs, "sys/bus/pci/devices"));
        line(f, "net", sortedNames(fs, "sys/class/net"));
        return new LiveState(f.toString(), allowed);
    }

    private static void line(StringBuilder f, String key, String value) {
        f.append(key).append(' ').append(value == null ? "-" : value).append('\n');
    }

    private static String sortedNames(FsRoot fs, String dir) {
        List<String> names = new ArrayList<>(fs.list(fs.path(dir)));
        Collections.sort(names);
        return String.join(" ", names);
    }

    // ---- info --------------------------------------------------------------------------------

    /**
     * The processor's name from the first record of /proc/cpuinfo: x86 "model name", old ARM
     * "Processor", POWER "cpu", else ARM "Hardware" or "CPU part". Only the head is read: the
     * kernel produces the file per CPU, which is slow on large machines.
     */
    private String readCpuModel() {
        String head = fs.readHead(fs.path("proc/cpuinfo"), 4096);
        if (head == null) return null;
        Map<String, String> fields = new HashMap<>();
        for (String line : head.split("\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) fields.putIfAbsent(line.substring(0, colon).strip(), line.substring(colon + 1).strip());
        }
        for (String key : new String[] {"model name", "Processor", "cpu", "Hardware", "CPU part"}) {
            String v = fields.get(key);
            if (v != null && !v.isEmpty()) return v;
        }
        return null;
    }
}
