package io.qv4j.agent.cli.plan;

import io.qv4j.agent.cli.shared.Svg;
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
 * Draws a machine as nested boxes in SVG, as {@code lstopo} does: packages, dies, NUMA nodes,
 * caches and cores, each core's PUs as cells, devices next to the smallest object holding their
 * locality, and on each PU what a labelling function says (the tasks on it). To stay legible at
 * thousands of PUs: in a core of more than 8 PUs, neighbours with the same label share one cell; a run of
 * sibling subtrees that look the same (same shape, same labels, PU numbers aside) is drawn once
 * with its count, as lstopo collapses identical objects.
 */
public final class PlanSvg {

    static final int PAD = 4;
    static final int TITLE = 16;
    static final int CELL_H = 18;
    static final int CELLS_PER_ROW = 8;

    /** What a PU shows: {@code ""} unused, a task list such as {@code "t3"}, or {@code "x"} for not allowed. */
    private final IntFunction<String> label;
    /** What the colours of {@code g0}..{@code g7} look like, for a legend. */
    public static final String[] COLOUR_NAMES = {"green", "blue", "orange", "pink", "lime", "violet", "teal", "yellow"};

    /** A used PU's colour class: {@code t}, or {@code g0}..{@code g7} for the group (pool) on it. */
    private final IntFunction<String> colour;
    private final Map<HwObject, List<Device>> devicesAt;
    /** A machine of several CPU kinds: each core is drawn in its kind's colour ({@code k0}, {@code k1}, ...). */
    private final boolean hybrid;

    private PlanSvg(Topology t, IntFunction<String> label, IntFunction<String> colour) {
        this.label = label;
        this.colour = colour;
        this.devicesAt = placeDevices(t);
        this.hybrid = t.hybrid();
    }

    /** A box: a titled container, or a cell (a PU range with its label). */
    static final class Box {
        String title;
        String name = "";
        String suffix = "";
        String cls;
        String label = "";
        List<Box> kids = new ArrayList<>();
        String sig;
        int count = 1;
        int w;
        int h;
    }

    public static String draw(Topology t, IntFunction<String> label, String caption) {
        return draw(t, label, pu -> "t", caption);
    }

    /** {@link #draw(Topology, IntFunction, String)} with each used PU coloured by {@code colour}: {@code g0}..{@code g7}, one per group. */
    public static String draw(Topology t, IntFunction<String> label, IntFunction<String> colour, String caption) {
        PlanSvg s = new PlanSvg(t, label, colour);
        Box root = s.box(t.root());
        root.title = "Machine (" + t.pus().size() + " PUs, allowed " + t.allowed() + ")";
        layout(root);
        int width = root.w + 2 * PAD;
        int height = root.h + 2 * PAD + TITLE + 4;
        StringBuilder sb = new StringBuilder(1 << 16);
        sb.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width).append("\" height=\"").append(height)
                .append("\" viewBox=\"0 0 ").append(width).append(' ').append(height)
                .append("\" font-family=\"monospace\" font-size=\"11\">\n");
        sb.append("<style>rect{stroke:#555;stroke-width:1}.Machine{fill:#fff}.Package{fill:#e8e8e8}.Die{fill:#dde}.NUMANode{fill:#eed}")
                .append(".Cache{fill:#fff}.Core{fill:#bcc}.k0{fill:#cdb}.k1{fill:#bcc}.k2{fill:#abd}.k3{fill:#a9c}.u,.PU{fill:#fff}.t,.g0{fill:#9d9}.g1{fill:#9cf}.g2{fill:#fc9}.g3{fill:#f9c}.g4{fill:#cf9}.g5{fill:#c9f}.g6{fill:#9fc}.g7{fill:#ff9}.x{fill:#aaa}.dev{fill:#dcb}.n{font-weight:bold}</style>\n");
        Svg.text(sb, PAD, PAD + 12, caption, "n");
        emit(sb, root, PAD, PAD + TITLE + 4);
        sb.append("</svg>\n");
        return sb.toString();
    }

    private Box box(HwObject o) {
        Box b = new Box();
        b.name = name(o);
        b.suffix = o.type() == HwType.CORE ? "" : " (" + o.cpuset().cardinality() + " PUs)";
        b.title = b.name + b.suffix;
        b.cls = cls(o.type());
        if (o.type() == HwType.CORE || o.type() == HwType.PU || o.children().isEmpty()) {
            if (hybrid) {
                HwObject pu = TopologyText.firstPu(o);
                b.cls += " k" + Math.min(pu.efficiency(), 3);
                b.suffix = " kind " + pu.efficiency();
                b.title = b.name + b.suffix;
            }
            cells(b, o.cpuset());
            if (o.type() == HwType.PU) b.title = "";
        } else {
            List<Box> kids = new ArrayList<>();
            for (HwObject c : o.children()) kids.add(box(c));
            b.kids = collapse(kids);
        }
        for (Device d : devicesAt.getOrDefault(o, List.of())) {
            Box dev = new Box();
            dev.cls = "dev";
            dev.title = (d.type() == HwType.GPU ? "GPU " : "NIC ") + d.label();
            dev.label = "near " + d.locality();
            dev.sig = dev.title;
            b.kids.add(dev);
        }
        StringBuilder sig = new StringBuilder(b.cls).append('[');
        for (Box k : b.kids) sig.append(k.count).append('*').append(k.sig).append(',');
        b.sig = sig.append(']').toString();
        return b;
    }

    /** A core's (or a lone PU's) PUs as cells, neighbours with the same label merged. */
    private void cells(Box core, CpuSet pus) {
        int[] list = pus.stream().toArray();
        boolean merge = list.length > CELLS_PER_ROW;
        int i = 0;
        while (i < list.length) {
            String l = label.apply(list[i]);
            int j = i;
            while (merge && j + 1 < list.length && label.apply(list[j + 1]).equals(l) && list[j + 1] == list[j] + 1) j++;
            Box c = new Box();
            c.cls = l.equals("x") ? "x" : l.isEmpty() ? "u" : colour.apply(list[i]);
            c.title = i == j ? Integer.toString(list[i]) : list[i] + "-" + list[j];
            c.label = l.isEmpty() ? "." : l;
            c.sig = (j - i + 1) + ":" + l;
            core.kids.add(c);
            i = j + 1;
        }
    }

    /** Runs of neighbouring siblings with the same signature become one box with a count. */
    private static List<Box> collapse(List<Box> kids) {
        List<Box> out = new ArrayList<>();
        int i = 0;
        while (i < kids.size()) {
            Box first = kids.get(i);
            int j = i;
            while (j + 1 < kids.size() && kids.get(j + 1).sig.equals(first.sig)) j++;
            if (j > i) {
                first.count = j - i + 1;
                first.title = first.name + " to " + kids.get(j).name + " (×" + first.count + " alike" + (first.suffix.isEmpty() ? "" : ", each" + first.suffix.substring(1)) + ")";
            }
            out.add(first);
            i = j + 1;
        }
        return out;
    }

    /** Sizes, bottom up: cells by their text; containers flow their children in near-square rows. */
    private static void layout(Box b) {
        if (b.kids.isEmpty()) {
            b.w = (b.title.length() + 1 + b.label.length()) * Svg.CHAR_W + 2 * PAD;
            b.h = CELL_H;
            return;
        }
        for (Box k : b.kids) layout(k);
        boolean cells = b.kids.get(0).kids.isEmpty();
        int perRow = cells ? CELLS_PER_ROW : Math.max(1, (int) Math.ceil(Math.sqrt(b.kids.size())));
        int x = 0;
        int rowW = 0;
        int rowH = 0;
        int total = 0;
        int n = 0;
        for (Box k : b.kids) {
            if (n == perRow) {
                rowW = Math.max(rowW, x - PAD);
                total += rowH + PAD;
                x = 0;
                rowH = 0;
                n = 0;
            }
            x += k.w + PAD;
            rowH = Math.max(rowH, k.h);
            n++;
        }
        rowW = Math.max(rowW, x - PAD);
        total += rowH;
        b.w = Math.max(rowW, b.title.length() * Svg.CHAR_W) + 2 * PAD;
        b.h = TITLE + total + 2 * PAD;
    }

    /** Draws {@code b} at (x, y); a core's cells are drawn relative to it, to keep the numbers short. */
    private static void emit(StringBuilder sb, Box b, int x, int y) {
        rect(sb, b.cls, x, y, b.w, b.h);
        if (b.kids.isEmpty()) {
            Svg.text(sb, x + PAD, y + 13, b.title + " " + b.label, null);
            sb.append('\n');
            return;
        }
        Svg.text(sb, x + PAD, y + 12, b.title, null);
        sb.append('\n');
        boolean cells = b.kids.get(0).kids.isEmpty();
        int ox = 0;
        int oy = 0;
        if (cells) {
            sb.append("<g transform=\"translate(").append(x).append(',').append(y).append(")\">\n");
            ox = x;
            oy = y;
        }
        int perRow = cells ? CELLS_PER_ROW : Math.max(1, (int) Math.ceil(Math.sqrt(b.kids.size())));
        int cx = x + PAD;
        int cy = y + TITLE + PAD;
        int rowH = 0;
        int n = 0;
        for (Box k : b.kids) {
            if (n == perRow) {
                cx = x + PAD;
                cy += rowH + PAD;
                rowH = 0;
                n = 0;
            }
            emit(sb, k, cx - ox, cy - oy);
            cx += k.w + PAD;
            rowH = Math.max(rowH, k.h);
            n++;
        }
        if (cells) sb.append("</g>\n");
    }

    private static void rect(StringBuilder sb, String cls, int x, int y, int w, int h) {
        sb.append("<rect class=\"").append(cls).append("\" x=\"").append(x).append("\" y=\"").append(y)
                .append("\" width=\"").append(w).append("\" height=\"").append(h).append("\"/>");
    }

    private static String cls(HwType t) {
        return switch (t) {
            case MACHINE -> "Machine";
            case PACKAGE -> "Package";
            case DIE -> "Die";
            case NUMANODE -> "NUMANode";
            case L3, L2, L1 -> "Cache";
            case CORE -> "Core";
            default -> "PU";
        };
    }

    private static String name(HwObject o) {
        return switch (o.type()) {
            case MACHINE -> "Machine";
            case PACKAGE -> "Package P#" + o.osIndex();
            case DIE -> "Die P#" + o.osIndex();
            case NUMANODE -> "NUMANode P#" + o.osIndex();
            case L3, L2, L1 -> o.type().name() + " L#" + o.logicalIndex();
            case CORE -> "Core L#" + o.logicalIndex();
            default -> o.type().shortName();
        };
    }

    /** Each device goes under the deepest package, die or NUMA node whose cpuset holds its locality. */
    private static Map<HwObject, List<Device>> placeDevices(Topology t) {
        Map<HwObject, List<Device>> at = new LinkedHashMap<>();
        for (Device d : t.devices()) {
            HwObject o = t.root();
            boolean deeper = true;
            while (deeper) {
                deeper = false;
                for (HwObject c : o.children()) {
                    if (c.type().compareTo(HwType.NUMANODE) <= 0 && c.cpuset().containsAll(d.locality())) {
                        o = c;
                        deeper = true;
                        break;
                    }
                }
            }
            at.computeIfAbsent(o, k -> new ArrayList<>()).add(d);
        }
        return at;
    }
}
