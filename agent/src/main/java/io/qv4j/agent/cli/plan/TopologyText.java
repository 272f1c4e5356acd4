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
import java.util.function.IntFunction;

/**
 * Draws a topology as indented text, like {@code lstopo}: one line per object down to cores,
 * whose line lists their PUs; devices under the smallest object that holds their locality.
 * A {@code labels} function lets {@code plan} print task numbers on the PUs instead.
 */
public final class TopologyText {

    private TopologyText() {
    }

    public static String draw(Topology t) {
        CpuSet allowed = t.allowed();
        CpuSet isolated = t.isolated();
        return draw(t, pu -> "PU " + pu + (allowed.contains(pu) ? "" : "(x)") + (isolated.contains(pu) ? "(i)" : ""));
    }

    public static String draw(Topology t, IntFunction<String> puLabel) {
        StringBuilder sb = new StringBuilder();
        Map<HwObject, List<Device>> devicesAt = placeDevices(t);
        sb.append("Machine: ").append(t.pus().size()).append(" PUs online ").append(t.online())
                .append(", allowed ").append(t.allowed());
        String model = t.info().get("cpu.model");
        if (model != null) sb.append(" — ").append(model);
        String caches = t.info().get("caches.source");
        sb.append("  [").append(t.source()).append(caches == null ? "" : "; caches: " + caches).append("]\n");
        boolean hybrid = t.hybrid();
        for (HwObject c : t.root().children()) draw(sb, c, "  ", puLabel, devicesAt, hybrid);
        for (Device d : devicesAt.getOrDefault(t.root(), List.of())) device(sb, d, "  ");
        if (!t.allowed().equals(t.online())) sb.append("(x) = not allowed for this process\n");
        if (!t.isolated().isEmpty()) sb.append("(i) = isolated by the kernel (no load balancing; pools are planned elsewhere while they can be): pus ").append(t.isolated()).append('\n');
        if (!t.tickless().isEmpty()) sb.append("tickless (nohz_full): pus ").append(t.tickless()).append('\n');
        for (CpuKind k : t.cpuKinds()) sb.append(kind(k)).append('\n');
        String note = t.info().get("caches.note");
        if (note != null) sb.append("caches: ").append(note).append('\n');
        return sb.toString();
    }

    /** {@code CPU kind efficiency 1: pus 0-11 (FrequencyMaxMHz 5000, FrequencyBaseMHz 1900)}, as {@code lstopo --cpukinds}. */
    static String kind(CpuKind k) {
        StringBuilder sb = new StringBuilder("CPU kind efficiency ").append(k.efficiency() < 0 ? "unknown" : Integer.toString(k.efficiency()))
                .append(": pus ").append(k.cpus());
        List<String> info = new ArrayList<>();
        for (Map.Entry<String, String> e : k.info().entrySet()) info.add(e.getKey() + " " + e.getValue());
        if (!info.isEmpty()) sb.append(" (").append(String.join(", ", info)).append(')');
        return sb.toString();
    }

    private static void draw(StringBuilder sb, HwObject o, String indent, IntFunction<String> puLabel,
                             Map<HwObject, List<Device>> devicesAt, boolean hybrid) {
        sb.append(indent).append(name(o));
        if (o.type() == HwType.CORE || o.type() == HwType.PU) {
            sb.append(' ');
            // a core shows its PUs on one line; a PU without a core (no core info) shows itself
            List<String> pus = new ArrayList<>();
            o.cpuset().stream().forEach(pu -> pus.add(puLabel.apply(pu)));
            sb.append(String.join("  ", pus));
            // on a hybrid machine, each core's kind (by its first PU's efficiency)
            if (hybrid) sb.append("  [kind ").append(o.type() == HwType.PU ? o.efficiency() : firstPu(o).efficiency()).append(']');
            sb.append('\n');
        } else {
            int n = o.cpuset().cardinality();
            sb.append(" (").append(n).append(n == 1 ? " PU: " : " PUs: ").append(o.cpuset()).append(")");
            if (o.memoryBytes() > 0) sb.append(' ').append(gib(o.memoryBytes()));
            if (o.cacheSize() > 0) sb.append(' ').append(size(o.cacheSize()));
            sb.append('\n');
            for (HwObject c : o.children()) draw(sb, c, indent + "  ", puLabel, devicesAt, hybrid);
        }
        for (Device d : devicesAt.getOrDefault(o, List.of())) device(sb, d, indent + "  ");
    }

    /** The first PU below {@code o} (itself if a PU): a core's kind is its PUs'. */
    static HwObject firstPu(HwObject o) {
        while (!o.children().isEmpty()) o = o.children().get(0);
        return o;
    }

    private static String name(HwObject o) {
        String n = switch (o.type()) {
            case PACKAGE -> "Package";
            case DIE -> "Die";
            case NUMANODE -> "NUMANode";
            case L3, L2, L1 -> o.type().name();
            case CORE -> "Core";
            case PU -> "";
            default -> o.type().shortName();
        };
        if (o.type() == HwType.PU) return "";
        if (o.type() == HwType.CORE) return n + " L#" + o.logicalIndex() + ":";
        return n + (o.osIndex() >= 0 && !o.type().isCache()
                ? " P#" + o.osIndex() : " L#" + o.logicalIndex());
    }

    private static void device(StringBuilder sb, Device d, String indent) {
        sb.append(indent).append(d.type() == HwType.GPU ? "GPU " : "NIC ").append(d.label());
        if (d.type() == HwType.GPU && !d.name().isEmpty()) sb.append(" \"").append(d.name()).append('"');
        sb.append(" near PUs ").append(d.locality()).append('\n');
    }

    /** Each device goes under the deepest package, die or NUMA node whose cpuset holds its locality, as lstopo does. */
    private static Map<HwObject, List<Device>> placeDevices(Topology t) {
        Map<HwObject, List<Device>> at = new LinkedHashMap<>();
        for (Device d : t.devices()) {
            HwObject o = t.root();
            descend:
            while (true) {
                for (HwObject c : o.children()) {
                    if (c.type().compareTo(HwType.NUMANODE) <= 0 && c.cpuset().containsAll(d.locality())) {
                        o = c;
                        continue descend;
                    }
                }
                break;
            }
            at.computeIfAbsent(o, k -> new ArrayList<>()).add(d);
        }
        return at;
    }

    /** KiB, MiB, ... stepping up while the number is 10240 or more, as lstopo does. */
    static String size(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int u = 0;
        long v = bytes;
        while (v >= 10240 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return v + " " + units[u];
    }

    private static String gib(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
    }
}
