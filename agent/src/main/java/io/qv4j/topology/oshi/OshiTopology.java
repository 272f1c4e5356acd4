package io.qv4j.topology.oshi;

import io.qv4j.topology.HwType;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;
import io.qv4j.topology.TopologyBuilder;
import oshi.SystemInfo;
import oshi.hardware.CentralProcessor;
import oshi.hardware.GraphicsCard;
import oshi.hardware.HardwareAbstractionLayer;

import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What OSHI is good for here: the processor's identity, memory size and GPU names, and a coarse
 * topology (packages, NUMA nodes, cores, PUs; no caches, no devices) where there is no sysfs.
 * Slow (65–170 ms for the processor alone): never on the agent's start-up path.
 */
public final class OshiTopology {

    private OshiTopology() {
    }

    /** Processor name, vendor, identifier, micro-architecture, memory and GPU names, for people. */
    public static Map<String, String> identity() {
        Map<String, String> info = new LinkedHashMap<>();
        HardwareAbstractionLayer hw = new SystemInfo().getHardware();
        CentralProcessor.ProcessorIdentifier id = hw.getProcessor().getProcessorIdentifier();
        info.put("cpu.model", id.getName());
        info.put("cpu.vendor", id.getVendor());
        info.put("cpu.identifier", id.getIdentifier());
        info.put("cpu.microarchitecture", id.getMicroarchitecture());
        info.put("memory.bytes", Long.toString(hw.getMemory().getTotal()));
        List<GraphicsCard> gpus = hw.getGraphicsCards();
        for (int i = 0; i < gpus.size(); i++) info.put("gpu." + i + ".name", gpus.get(i).getName());
        return info;
    }

    /**
     * The topology as OSHI sees it. OSHI ignores affinity and cgroups, so the allowed set is all
     * PUs it lists: only for systems without sysfs.
     */
    public static Topology read() {
        CentralProcessor cpu = new SystemInfo().getHardware().getProcessor();
        TopologyBuilder b = new TopologyBuilder("oshi");
        BitSet online = new BitSet();
        Map<Integer, BitSet> packages = new TreeMap<>();
        Map<Integer, BitSet> numa = new TreeMap<>();
        Map<Long, BitSet> cores = new TreeMap<>();
        for (CentralProcessor.LogicalProcessor lp : cpu.getLogicalProcessors()) {
            int pu = lp.getProcessorNumber();
            online.set(pu);
            packages.computeIfAbsent(lp.getPhysicalPackageNumber(), k -> new BitSet()).set(pu);
            numa.computeIfAbsent(lp.getNumaNode(), k -> new BitSet()).set(pu);
            long core = ((long) lp.getPhysicalPackageNumber() << 32) | lp.getPhysicalProcessorNumber();
            cores.computeIfAbsent(core, k -> new BitSet()).set(pu);
        }
        b.online(CpuSet.of(online));
        packages.forEach((id, pus) -> b.add(HwType.PACKAGE, id, CpuSet.of(pus)));
        numa.forEach((id, pus) -> b.numaNode(id, CpuSet.of(pus), 0));
        cores.forEach((id, pus) -> b.add(HwType.CORE, (int) (long) id, CpuSet.of(pus)));
        return b.build().withInfo(Map.of("cpu.model", cpu.getProcessorIdentifier().getName()));
    }
}
