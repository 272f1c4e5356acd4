package io.qv4j.split;

import io.qv4j.topology.HwType;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Device;
import io.qv4j.topology.Topology;
import io.qv4j.topology.TopologyBuilder;

import java.util.BitSet;
import java.util.Random;

/**
 * Builds uniform topologies for tests straight with {@link TopologyBuilder}, from hwloc-style
 * specs such as {@code "package:2 numa:2 l3:1 core:4 pu:2 gpu:1 nic:1"}: PUs numbered in logical
 * order (PU {@code 2c}, {@code 2c+1} on core {@code c} for {@code pu:2}), GPUs and NICs per NUMA
 * node (per machine without NUMA level), with the node's PUs as locality.
 */
public final class TestTopologies {

    private TestTopologies() {
    }

    public static Topology synthetic(String spec) {
        return synthetic(spec, null);
    }

    /** @param allowed the allowed PUs, or null for all */
    public static Topology synthetic(String spec, CpuSet allowed) {
        String[] words = spec.trim().split("\\s+");
        HwType[] types = new HwType[words.length];
        int[] counts = new int[words.length];
        int pus = 1;
        for (int i = 0; i < words.length; i++) {
            String[] kv = words[i].split(":");
            types[i] = HwType.parse(kv[0]);
            counts[i] = Integer.parseInt(kv[1]);
            if (!types[i].isDevice()) pus *= counts[i];
        }
        TopologyBuilder b = new TopologyBuilder("test:" + spec).online(CpuSet.range(0, pus - 1));
        if (allowed != null) b.allowed(allowed);
        int objects = 1;
        int numaNodes = 0;
        for (int i = 0; i < words.length; i++) {
            if (types[i].isDevice() || types[i] == HwType.PU) continue;
            objects *= counts[i];
            int size = pus / objects;
            for (int o = 0; o < objects; o++) {
                CpuSet cpus = CpuSet.range(o * size, o * size + size - 1);
                if (types[i] == HwType.NUMANODE) b.numaNode(o, cpus, 1L << 30);
                else b.add(types[i], o, cpus);
            }
            if (types[i] == HwType.NUMANODE) numaNodes = objects;
        }
        int localities = Math.max(numaNodes, 1);
        int gpu = 0, nic = 0;
        for (int i = 0; i < words.length; i++) {
            if (!types[i].isDevice()) continue;
            for (int n = 0; n < localities; n++) {
                CpuSet near = CpuSet.range(n * pus / localities, (n + 1) * pus / localities - 1);
                for (int k = 0; k < counts[i]; k++) {
                    if (types[i] == HwType.GPU) {
                        b.device(new Device(HwType.GPU, String.format("0000:%02x:00.0", 0x10 + gpu++), "gpu", near));
                    } else {
                        b.device(new Device(HwType.NIC, String.format("0000:%02x:00.0", 0x80 + nic), "eth" + nic++, near));
                    }
                }
            }
        }
        return b.build();
    }

    /** A random subset of {@code 0..pus-1} with about {@code density} of the PUs, never empty. */
    public static CpuSet randomSubset(Random random, int pus, double density) {
        BitSet bits = new BitSet();
        for (int p = 0; p < pus; p++) if (random.nextDouble() < density) bits.set(p);
        if (bits.isEmpty()) bits.set(random.nextInt(pus));
        return CpuSet.of(bits);
    }

    /** A random uniform spec with at most {@code maxPus} PUs and SMT 1–4, sometimes with NUMA, L3, L2 levels and devices. */
    public static String randomSpec(Random random, int maxPus) {
        while (true) {
            StringBuilder sb = new StringBuilder();
            int pus = 1;
            int[] choice = {1 + random.nextInt(4), random.nextBoolean() ? 1 + random.nextInt(4) : 0,
                    random.nextBoolean() ? 1 + random.nextInt(3) : 0, random.nextBoolean() ? 1 + random.nextInt(2) : 0,
                    1 + random.nextInt(64), 1 + random.nextInt(4)};
            String[] names = {"package", "numa", "l3", "l2", "core", "pu"};
            for (int i = 0; i < names.length; i++) {
                if (choice[i] == 0) continue;
                sb.append(names[i]).append(':').append(choice[i]).append(' ');
                pus *= choice[i];
            }
            if (pus > maxPus) continue;
            if (random.nextBoolean()) sb.append("gpu:").append(random.nextInt(3)).append(' ');
            if (random.nextBoolean()) sb.append("nic:").append(random.nextInt(2));
            return sb.toString().trim().replaceAll("\\s*\\w+:0\\b", "").trim();
        }
    }
}
