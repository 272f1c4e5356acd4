package io.qv4j.topology;


import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Builds a topology from an hwloc-style synthetic spec: {@code package:2 numa:2 l3:1 core:8 pu:2 gpu:1 nic:1}.
 *
 * <p>Words are {@code type:count}, blank-separated. CPU levels ({@code package die numa l3 l2 l1
 * core pu}) come outermost first, each at most once; each count is per parent. A missing
 * {@code pu:} means {@code pu:1}. PU OS indexes follow logical order (0..N-1, as hwloc synthetic
 * does), so every object covers a contiguous range; other objects' OS index is their logical index.
 *
 * <p>{@code gpu:N} and {@code nic:N} may appear anywhere and give N devices per NUMA node (per
 * package without a numa level, per machine without either), local to that object. Device k
 * (0-based, per type, in host order) gets the PCI id {@code DDDD:BB:00.0} with domain
 * {@code k / 64} and bus {@code 0x40 + k % 64} for GPUs, {@code 0x80 + k % 64} for NICs: unique,
 * stable, and sorting by id keeps host order. NICs are named {@code nic0, nic1, ...}.
 *
 * <p>{@code kind:PUS@N} (any number of them, anywhere) makes the PUs {@code PUS}, a cpulist such as
 * {@code 0-11} or {@code 0-3,8}, a CPU kind of efficiency rank {@code N} (hwloc's
 * {@code forced_efficiency}; 0 the most energy-efficient): {@code package:1 core:14 kind:0-5@1 kind:6-13@0}
 * is a machine of 6 performance and 8 efficiency cores. Kinds may not overlap.
 *
 * <p>Everything is online and allowed. At most {@value #MAX_PUS} PUs, Linux's largest
 * {@code NR_CPUS}: such a machine costs about 30 MB to build, and a larger spec is refused before
 * anything is allocated (a million PUs would exhaust a small application's heap).
 */
public final class SyntheticSpec {

    public static final int MAX_PUS = 8192;
    private static final int MAX_DEVICES = 1 << 16;
    private static final HwType[] LEVELS = {
            HwType.PACKAGE, HwType.DIE, HwType.NUMANODE, HwType.L3, HwType.L2, HwType.L1, HwType.CORE, HwType.PU};

    private SyntheticSpec() {
    }

    /** @throws TopologyException naming the spec and the bad word */
    public static Topology parse(String spec) {
        String s = spec == null ? "" : spec.strip();
        if (s.isEmpty()) throw new TopologyException("'" + s + "': empty synthetic spec (e.g. 'package:2 core:4 pu:2')");

        Map<HwType, Integer> counts = new EnumMap<>(HwType.class);
        Map<HwType, String> words = new EnumMap<>(HwType.class);
        Map<String, CpuSet> kinds = new java.util.LinkedHashMap<>();
        HwType lastLevel = null;
        long pus = 1;
        for (String word : s.split("\\s+")) {
            if (word.startsWith("kind:")) {
                kinds.put(word, kindPus(s, word, kinds));
                continue;
            }
            int colon = word.indexOf(':');
            HwType type = colon > 0 ? typeOf(word.substring(0, colon)) : null;
            if (type == null) {
                throw bad(s, word, "unknown word (expected type:count with type one of package, die, numa, l3, l2, l1, core, pu, gpu, nic)");
            }
            int count;
            try {
                count = Integer.parseInt(word.substring(colon + 1));
            } catch (NumberFormatException e) {
                count = 0;
            }
            if (count <= 0) throw bad(s, word, "the count must be a positive integer");
            if (counts.containsKey(type)) throw bad(s, word, "repeats '" + words.get(type) + "'");
            if (!type.isDevice()) {
                if (lastLevel != null && type.compareTo(lastLevel) < 0) {
                    throw bad(s, word, "comes after '" + words.get(lastLevel) + "' but is an outer level (order: package die numa l3 l2 l1 core pu)");
                }
                lastLevel = type;
                pus *= count;
                if (pus > MAX_PUS) {
                    throw bad(s, word, "makes more than " + MAX_PUS + " PUs (the most Linux supports), the limit of a synthetic topology");
                }
            }
            counts.put(type, count);
            words.put(type, word);
        }

        TopologyBuilder b = new TopologyBuilder(s);
        int total = (int) pus;
        b.online(CpuSet.range(0, total - 1));
        int objects = 1; // objects at the current level
        for (HwType level : LEVELS) {
            Integer c = counts.get(level);
            if (c == null || level == HwType.PU) continue;
            objects *= c;
            int size = total / objects;
            for (int k = 0; k < objects; k++) {
                CpuSet cpus = CpuSet.range(k * size, (k + 1) * size - 1);
                if (level == HwType.NUMANODE) b.numaNode(k, cpus, 0);
                else b.add(level, k, cpus);
            }
        }

        // Device hosts: NUMA nodes, else packages, else the machine.
        HwType hostLevel = counts.containsKey(HwType.NUMANODE) ? HwType.NUMANODE
                : counts.containsKey(HwType.PACKAGE) ? HwType.PACKAGE : null;
        int hosts = 1;
        if (hostLevel != null) {
            for (HwType level : LEVELS) {
                hosts *= counts.getOrDefault(level, 1);
                if (level == hostLevel) break;
            }
        }
        devices(b, s, words, HwType.GPU, counts.getOrDefault(HwType.GPU, 0), hosts, total, 0x40);
        devices(b, s, words, HwType.NIC, counts.getOrDefault(HwType.NIC, 0), hosts, total, 0x80);
        for (Map.Entry<String, CpuSet> k : kinds.entrySet()) {
            if (k.getValue().last() >= total) throw bad(s, k.getKey(), "names PUs beyond the machine's 0-" + (total - 1));
            String word = k.getKey();
            b.cpuKind(k.getValue(), Map.of(), Integer.parseInt(word.substring(word.indexOf('@') + 1)));
        }
        return b.build();
    }

    /** The PUs of a {@code kind:PUS@N} word, checked against the kinds before it. */
    private static CpuSet kindPus(String spec, String word, Map<String, CpuSet> before) {
        int at = word.indexOf('@');
        CpuSet cpus;
        int efficiency;
        try {
            cpus = at < 0 ? CpuSet.empty() : CpuSet.parse(word.substring(5, at));
            efficiency = at < 0 ? -1 : Integer.parseInt(word.substring(at + 1));
        } catch (IllegalArgumentException e) {
            cpus = CpuSet.empty();
            efficiency = -1;
        }
        if (cpus.isEmpty() || efficiency < 0 || efficiency > 255) {
            throw bad(spec, word, "a kind is kind:PUS@N, a cpulist and an efficiency rank 0 to 255 (kind:0-11@1)");
        }
        if (cpus.last() >= MAX_PUS) throw bad(spec, word, "names PUs beyond " + (MAX_PUS - 1));
        for (Map.Entry<String, CpuSet> k : before.entrySet()) {
            if (k.getValue().intersects(cpus)) throw bad(spec, word, "overlaps '" + k.getKey() + "'");
        }
        return cpus;
    }

    private static void devices(TopologyBuilder b, String spec, Map<HwType, String> words, HwType type,
                                int perHost, int hosts, int totalPus, int busBase) {
        if (perHost == 0) return;
        if ((long) perHost * hosts > MAX_DEVICES) throw bad(spec, words.get(type), "more than " + MAX_DEVICES + " devices");
        int size = totalPus / hosts;
        int k = 0;
        for (int h = 0; h < hosts; h++) {
            CpuSet locality = CpuSet.range(h * size, (h + 1) * size - 1);
            for (int i = 0; i < perHost; i++, k++) {
                String pci = String.format(Locale.ROOT, "%04x:%02x:00.0", k / 64, busBase + k % 64);
                b.device(new Device(type, pci, type == HwType.NIC ? "nic" + k : "", locality));
            }
        }
    }

    private static HwType typeOf(String name) {
        try {
            HwType t = HwType.parse(name);
            return t == HwType.MACHINE ? null : t;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static TopologyException bad(String spec, String word, String why) {
        return new TopologyException("synthetic spec '" + spec + "': '" + word + "': " + why);
    }
}
