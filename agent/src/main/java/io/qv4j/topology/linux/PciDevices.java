package io.qv4j.topology.linux;

import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Device;
import io.qv4j.topology.HwType;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The PCI devices of a sysfs root that a topology keeps: GPUs and NICs, each with the PUs near it. */
final class PciDevices {

    private final FsRoot fs;
    private final CpuSet online;
    private final Map<Integer, CpuSet> numaCpus;

    /** {@code numaCpus}: each NUMA node's PUs, for devices whose kernel gives only a node. */
    PciDevices(FsRoot fs, CpuSet online, Map<Integer, CpuSet> numaCpus) {
        this.fs = fs;
        this.online = online;
        this.numaCpus = numaCpus;
    }

    /** The GPUs (PCI display controllers) and NICs (network interfaces on a PCI function), with their locality. */
    List<Device> read() {
        List<Device> out = new ArrayList<>();
        Path pciDir = fs.path("sys/bus/pci/devices");
        CpusetAttr localCpus = new CpusetAttr(fs, "local_cpulist", "local_cpus");
        for (String name : fs.list(pciDir)) {
            Path dev = fs.resolve(pciDir.resolve(name));
            if (dev == null) continue;
            String cls = fs.read(dev.resolve("class"));
            if (cls != null && pciClass(cls) >> 16 == 0x03) { // display controller
                out.add(new Device(HwType.GPU, name, "", locality(dev, localCpus)));
            }
        }
        Path netDir = fs.path("sys/class/net");
        for (String name : fs.list(netDir)) {
            Path netDev = fs.resolve(netDir.resolve(name));
            Path device = netDev == null ? null : fs.resolve(netDev.resolve("device"));
            Path pci = device == null ? null : nearestPciFunction(device);
            if (pci == null) continue; // virtual interfaces (lo, bridges, veth) have no device
            out.add(new Device(HwType.NIC, pci.getFileName().toString(), name, locality(pci, localCpus)));
        }
        return out;
    }

    private static int pciClass(String s) {
        try {
            return Integer.parseInt(s.startsWith("0x") ? s.substring(2) : s, 16);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Where a device sits: the kernel's local_cpulist (its host bridge's PUs) when it names an
     * online PU, else its numa_node's PUs, else the whole machine ({@code numa_node = -1} means
     * unknown). local_cpulist comes first because it is what the kernel itself uses for the
     * device's interrupts and allocations; the fixture 40intel64-2g2n4c+pcilocality has an
     * InfiniBand card with numa_node 2 and local_cpulist 0-39, and hwloc reports 0-39.
     */
    private CpuSet locality(Path dev, CpusetAttr localCpus) {
        CpuSet local = localCpus.read(dev);
        if (local != null && local.intersects(online)) return local.and(online);
        int node = fs.readInt(dev.resolve("numa_node"), -1);
        CpuSet nodeCpus = node >= 0 ? numaCpus.get(node) : null;
        return nodeCpus != null && !nodeCpus.isEmpty() ? nodeCpus : online;
    }

    /** The device itself or its closest ancestor that is a PCI function (virtio NICs sit below one). */
    private static Path nearestPciFunction(Path device) {
        for (Path p = device; p != null && p.getFileName() != null; p = p.getParent()) {
            if (isPciAddress(p.getFileName().toString())) return p;
        }
        return null;
    }

    /** {@code dddd:bb:dd.f} (the domain may have more digits). */
    static boolean isPciAddress(String s) {
        int c2 = s.lastIndexOf(':'), c1 = c2 > 0 ? s.lastIndexOf(':', c2 - 1) : -1, dot = s.lastIndexOf('.');
        if (c1 <= 0 || dot != c2 + 3 || c2 != c1 + 3 || dot != s.length() - 2) return false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (i != c1 && i != c2 && i != dot && Character.digit(c, 16) < 0) return false;
        }
        return true;
    }
}
