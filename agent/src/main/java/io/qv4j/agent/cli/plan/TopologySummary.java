package io.qv4j.agent.cli.plan;

import io.qv4j.topology.CpuKind;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Device;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.HwType;
import io.qv4j.topology.Topology;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The machine-readable summary of a topology (DESIGN.md §3.3): cpusets as cpulists, lists sorted
 * by lowest PU, NUMA nodes by OS index, GPUs by PCI id, NICs by name.
 */
final class TopologySummary {

    private TopologySummary() {
    }

    static Map<String, Object> of(Topology t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("source", t.source());
        m.put("online", t.online().toString());
        m.put("allowed", t.allowed().toString());
        m.put("isolated", t.isolated().toString());
        m.put("tickless", t.tickless().toString());
        m.put("packages", cpusets(t, HwType.PACKAGE));
        m.put("dies", cpusets(t, HwType.DIE));
        List<Object> numa = new ArrayList<>();
        List<Object> numaMemory = new ArrayList<>();
        for (HwObject n : t.numaNodes()) {
            if (n.memoryBytes() > 0) {
                Map<String, Object> mem = new LinkedHashMap<>();
                mem.put("os", n.osIndex());
                mem.put("bytes", n.memoryBytes());
                numaMemory.add(mem);
            }
            if (n.cpuset().isEmpty()) continue; // memory-only nodes never get threads
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("os", n.osIndex());
            e.put("cpus", n.cpuset().toString());
            numa.add(e);
        }
        // "numa" entries are exactly {os, cpus} (DESIGN §3.3, what hwloc-derived expectations hold);
        // memory sizes, memory-only nodes included, go in their own key.
        m.put("numa", numa);
        m.put("numa_memory", numaMemory);
        m.put("l3", cpusets(t, HwType.L3));
        m.put("l2", cpusets(t, HwType.L2));
        m.put("l1", cpusets(t, HwType.L1));
        m.put("cores", cpusets(t, HwType.CORE));
        List<Object> gpus = new ArrayList<>();
        for (Device d : t.devices(HwType.GPU)) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("pci", d.pci());
            e.put("cpus", d.locality().toString());
            if (!d.name().isEmpty()) e.put("name", d.name());
            gpus.add(e);
        }
        m.put("gpus", gpus);
        List<Object> nics = new ArrayList<>();
        for (Device d : t.devices(HwType.NIC)) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("name", d.name());
            e.put("pci", d.pci());
            e.put("cpus", d.locality().toString());
            nics.add(e);
        }
        m.put("nics", nics);
        List<Object> kinds = new ArrayList<>();
        for (CpuKind k : t.cpuKinds()) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("efficiency", k.efficiency());
            e.put("cpus", k.cpus().toString());
            e.put("info", new LinkedHashMap<>(k.info()));
            kinds.add(e);
        }
        m.put("cpukinds", kinds);
        if (!t.info().isEmpty()) m.put("info", new LinkedHashMap<>(t.info()));
        return m;
    }

    private static List<Object> cpusets(Topology t, HwType type) {
        List<CpuSet> sets = new ArrayList<>();
        for (HwObject o : t.objects(type)) sets.add(o.cpuset());
        sets.sort(null);
        return new ArrayList<>(sets.stream().map(CpuSet::toString).toList());
    }
}
