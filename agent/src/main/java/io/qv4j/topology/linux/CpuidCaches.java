package io.qv4j.topology.linux;

import io.qv4j.topology.CpuSet;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The data and unified caches of an x86 machine from CPUID, for machines whose sysfs has no cache
 * directories (some cloud VMs), read the way hwloc's x86 backend reads them:
 * <ul>
 * <li>Intel (and other vendors with leaf 4): deterministic cache parameters, leaf 4;</li>
 * <li>AMD and Hygon: leaf 0x8000001D where the processor has topology extensions, else the legacy
 * leaves 0x80000005 (L1) and 0x80000006 (L2, L3), with the L3 shared by the package's cores
 * (leaf 0x80000008).</li>
 * </ul>
 * A cache's size is ways × partitions × line size × sets. The PUs sharing a cache are those whose
 * APIC id (x2APIC id from leaf 0xB where it is valid, else the initial APIC id of leaf 1) agrees
 * above the low ceil(log2(maximum sharing count)) bits. CPUID answers for the PU that executes it,
 * so each PU is probed from a thread bound to it: only PUs this process may run on can be probed,
 * and caches are known only on those.
 *
 * <p>Decoding is pure ({@link #decode}, {@link #group}) over register values.
 */
final class CpuidCaches {

    /** One cache as one PU reports it: level 1–3, size in bytes, the APIC id bits that PUs sharing it differ in. */
    record Seen(int level, long size, int shift) {
    }

    /** What one PU reports: its APIC id and its data/unified caches. */
    record Pu(long apicId, List<Seen> caches) {
    }

    /** One cache instance of the machine. */
    record Instance(int level, long size, CpuSet cpus) {
    }

    /** The outcome of probing: caches (empty when none were found) and a note on how, or why not. */
    record Result(List<Instance> caches, String note) {
    }

    private static final int TYPE_NULL = 0;
    private static final int TYPE_INSTRUCTION = 2;
    /** Leaf 4 and 0x8000001D end with a null type; a bound in case a hypervisor never does. */
    private static final int MAX_SUBLEAVES = 32;

    private CpuidCaches() {
    }

    /** The caches the calling thread's PU reports through {@code q}. */
    static Pu decode(Cpuid q) {
        int[] r0 = q.query(0, 0);
        int maxLeaf = r0[0];
        boolean amd = vendor(r0, "AuthenticAMD") || vendor(r0, "HygonGenuine");
        long apic = maxLeaf >= 1 ? (q.query(1, 0)[1] >>> 24) : 0;
        if (maxLeaf >= 0xB) {
            int[] b = q.query(0xB, 0);
            if ((b[1] & 0xffff) != 0) apic = b[3] & 0xffffffffL; // subleaf 0 with no logical processors: leaf not supported
        }
        long maxExt = q.query(0x80000000, 0)[0] & 0xffffffffL;
        List<Seen> caches = new ArrayList<>();
        if (!amd && maxLeaf >= 4) {
            deterministic(q, 4, caches);
        } else if (amd) {
            boolean topoext = maxExt >= 0x80000001L && (q.query(0x80000001, 0)[2] & (1 << 22)) != 0;
            if (topoext && maxExt >= 0x8000001DL) deterministic(q, 0x8000001D, caches);
            if (caches.isEmpty()) legacyAmd(q, maxExt, caches); // hypervisors may set topoext and answer zeros
        }
        return new Pu(apic, caches);
    }

    private static boolean vendor(int[] r0, String name) {
        // the vendor string is ebx, edx, ecx, four little-endian characters each
        int[] order = {r0[1], r0[3], r0[2]};
        for (int i = 0; i < 12; i++) {
            if (((order[i / 4] >>> (8 * (i % 4))) & 0xff) != name.charAt(i)) return false;
        }
        return true;
    }

    /** Leaf 4 (Intel) or 0x8000001D (AMD): the same register layout. */
    private static void deterministic(Cpuid q, int leaf, List<Seen> out) {
        for (int sub = 0; sub < MAX_SUBLEAVES; sub++) {
            int[] r = q.query(leaf, sub);
            int type = r[0] & 0x1f;
            if (type == TYPE_NULL) break;
            int level = (r[0] >>> 5) & 0x7;
            if (type == TYPE_INSTRUCTION || level < 1 || level > 3) continue;
            long ways = (r[1] >>> 22) + 1;
            long partitions = ((r[1] >>> 12) & 0x3ff) + 1;
            long line = (r[1] & 0xfff) + 1;
            long sets = (r[2] & 0xffffffffL) + 1;
            int sharing = ((r[0] >>> 14) & 0xfff) + 1;
            out.add(new Seen(level, ways * partitions * line * sets, ceilLog2(sharing)));
        }
    }

    /** AMD before topology extensions: sizes in KiB (L1, L2) and 512 KiB units (L3); a zero associativity means none. */
    private static void legacyAmd(Cpuid q, long maxExt, List<Seen> out) {
        if (maxExt >= 0x80000005L) {
            int ecx = q.query(0x80000005, 0)[2];
            if ((ecx >>> 24) != 0) out.add(new Seen(1, (long) (ecx >>> 24) << 10, 0));
        }
        if (maxExt < 0x80000006L) return;
        int[] r = q.query(0x80000006, 0);
        if (((r[2] >>> 12) & 0xf) != 0) out.add(new Seen(2, (long) (r[2] >>> 16) << 10, 0));
        if (((r[3] >>> 12) & 0xf) != 0) {
            int shift = 0;
            if (maxExt >= 0x80000008L) {
                int ecx = q.query(0x80000008, 0)[2];
                int coreIdBits = (ecx >>> 12) & 0xf;
                shift = coreIdBits != 0 ? coreIdBits : ceilLog2((ecx & 0xff) + 1);
            }
            out.add(new Seen(3, (long) (r[3] >>> 18) * (512L << 10), shift));
        }
    }

    static int ceilLog2(int n) {
        return n <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(n - 1);
    }

    /**
     * The machine's cache instances from what each PU reported: PUs whose APIC ids agree above a
     * cache's shift share it. Null when two PUs report the same APIC id (a hypervisor's error that
     * would merge unrelated caches).
     */
    static List<Instance> group(Map<Integer, Pu> byPu) {
        Map<Long, Integer> apicOwner = new LinkedHashMap<>();
        Map<String, long[]> sizes = new LinkedHashMap<>();
        Map<String, BitSet> members = new LinkedHashMap<>();
        Map<String, Integer> levels = new LinkedHashMap<>();
        for (Map.Entry<Integer, Pu> e : byPu.entrySet()) {
            Pu pu = e.getValue();
            if (apicOwner.putIfAbsent(pu.apicId(), e.getKey()) != null) return null;
            for (Seen c : pu.caches()) {
                // the shift is part of the key: hybrid cores share their L2 by different numbers of bits
                String key = c.level() + "/" + c.shift() + "/" + (pu.apicId() >>> c.shift());
                BitSet pus = members.get(key);
                if (pus == null) members.put(key, pus = new BitSet());
                pus.set(e.getKey());
                sizes.putIfAbsent(key, new long[] {c.size()});
                levels.putIfAbsent(key, c.level());
            }
        }
        List<Instance> out = new ArrayList<>();
        for (Map.Entry<String, BitSet> m : members.entrySet()) {
            out.add(new Instance(levels.get(m.getKey()), sizes.get(m.getKey())[0], CpuSet.of(m.getValue())));
        }
        return out;
    }

    /**
     * Probes every PU of {@code allowed} from one short-lived thread bound to each in turn (the
     * caller's own affinity is never touched), and groups what they report.
     */
    static Result probe(Cpuid cpuid, CpuSet allowed) {
        Map<Integer, Pu> byPu = new LinkedHashMap<>();
        Throwable[] failure = new Throwable[1];
        Thread t = new Thread(new Runnable() {
            @Override
            public void run() {
                try {
                    for (int pu = allowed.first(); pu >= 0; pu = allowed.next(pu + 1)) {
                        if (cpuid.moveTo(pu)) byPu.put(pu, decode(cpuid));
                    }
                } catch (Throwable e) {
                    failure[0] = e;
                }
            }
        }, "qv4j-cpuid");
        t.setDaemon(true);
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(List.of(), "CPUID probing interrupted");
        }
        if (failure[0] != null) return new Result(List.of(), "CPUID failed: " + failure[0]);
        if (byPu.isEmpty()) return new Result(List.of(), "CPUID could not run on any allowed PU");
        List<Instance> caches = group(byPu);
        if (caches == null) return new Result(List.of(), "CPUID gives several PUs the same APIC id");
        if (caches.isEmpty()) return new Result(List.of(), "CPUID describes no caches");
        BitSet probed = new BitSet();
        for (int pu : byPu.keySet()) probed.set(pu);
        return new Result(caches, "from CPUID on PUs " + CpuSet.of(probed) + " (the PUs this process may use)");
    }
}
