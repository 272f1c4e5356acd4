package io.qv4j.topology;


import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A PCI device that threads may want to sit near: a GPU (display-class function) or a NIC
 * (network interface backed by a PCI device).
 *
 * @param type     {@link HwType#GPU} or {@link HwType#NIC}
 * @param pci      PCI bus id, {@code 0000:3b:00.0}; may be "" when unknown
 * @param name     interface name for NICs ({@code eth0}), model name or "" for GPUs
 * @param locality the online PUs near the device (the whole machine when unknown)
 */
public record Device(HwType type, String pci, String name, CpuSet locality) {

    public Device {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(pci, "pci");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(locality, "locality");
        if (!type.isDevice()) throw new IllegalArgumentException(type + " is not a device type");
    }

    /** The devices of one type from a list, in list order. */
    public static List<Device> ofType(List<Device> devices, HwType type) {
        List<Device> out = new ArrayList<>();
        for (Device d : devices) if (d.type() == type) out.add(d);
        return out;
    }

    /** How users and reports name the device: the PCI id, and the interface name for NICs. */
    public String label() {
        if (type == HwType.NIC && !name.isEmpty()) return pci.isEmpty() ? name : name + " (" + pci + ")";
        return pci.isEmpty() ? name : pci;
    }
}
