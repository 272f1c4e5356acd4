import org.w3c.dom.Element;
import org.w3c.dom.Node;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.File;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns an hwloc v2 XML file ({@code lstopo --of xml}) into the machine summary that
 * {@code qv-agent.jar topology --format json} must print for it (docs/DESIGN.md §3.3), written
 * the way the fixtures' {@code *.expected.json} files are. It reads hwloc's answer directly and
 * shares no code with qv4j, so a fixture's expected file does not depend on the parser it tests.
 *
 * <pre>java scripts/LstopoSummary.java MACHINE.xml &gt; MACHINE.expected.json</pre>
 *
 * For a sysfs dump, let hwloc read the dump first:
 * {@code lstopo -i DIR --disallowed --of xml MACHINE.xml}.
 */
public class LstopoSummary {

    /** hwloc 2's {@code HWLOC_OBJ_OSDEV_NETWORK}: a network interface such as eth0 or ib0. */
    static final String OSDEV_NETWORK = "2";

    BitSet online;
    final List<BitSet> packages = new ArrayList<>(), l3 = new ArrayList<>(), l2 = new ArrayList<>(), cores = new ArrayList<>();
    final Map<Integer, BitSet> numa = new TreeMap<>();
    final Map<String, BitSet> gpus = new TreeMap<>();
    final Map<String, String[]> nics = new TreeMap<>();  // name -> {pci, cpulist}

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: java scripts/LstopoSummary.java MACHINE.xml   (hwloc v2 XML, as lstopo --of xml writes it)");
            System.exit(2);
        }
        System.out.print(summarize(new File(args[0])));
    }

    public static String summarize(File xml) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        // the files name hwloc2.dtd, which is not beside them
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        Element machine = firstChild(f.newDocumentBuilder().parse(xml).getDocumentElement(), "object");
        if (machine == null || !"Machine".equals(machine.getAttribute("type"))) {
            throw new IllegalArgumentException(xml + ": no Machine object under <topology>");
        }
        LstopoSummary s = new LstopoSummary();
        s.online = bitmap(machine.getAttribute("cpuset"));
        BitSet allowed = bitmap(machine.hasAttribute("allowed_cpuset") ? machine.getAttribute("allowed_cpuset") : machine.getAttribute("cpuset"));
        allowed.and(s.online);
        s.walk(machine, s.online);
        return s.json(allowed);
    }

    /** {@code locality}: the cpuset of the nearest object above that has one (I/O objects have none). */
    void walk(Element o, BitSet locality) {
        BitSet cpus = o.hasAttribute("cpuset") ? onlineOf(o.getAttribute("cpuset")) : locality;
        switch (o.getAttribute("type")) {
            case "Package" -> add(packages, cpus);
            case "L3Cache" -> add(l3, cpus);
            case "L2Cache" -> add(l2, cpus);
            case "Core" -> add(cores, cpus);
            case "NUMANode" -> {
                if (!cpus.isEmpty()) numa.put(Integer.parseInt(o.getAttribute("os_index")), cpus);
            }
            case "PCIDev" -> {  // pci_type starts with the class: 03xx = display controller
                if (o.getAttribute("pci_type").startsWith("03")) gpus.put(o.getAttribute("pci_busid"), cpus);
            }
            case "OSDev" -> {
                Node parent = o.getParentNode();
                if (OSDEV_NETWORK.equals(o.getAttribute("osdev_type")) && parent instanceof Element p
                        && "PCIDev".equals(p.getAttribute("type"))) {
                    nics.put(o.getAttribute("name"), new String[] {p.getAttribute("pci_busid"), cpulist(cpus)});
                }
            }
            default -> { }
        }
        for (Node c = o.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c instanceof Element e && e.getTagName().equals("object")) walk(e, cpus);
        }
    }

    BitSet onlineOf(String hex) {
        BitSet b = bitmap(hex);
        b.and(online);
        return b;
    }

    static void add(List<BitSet> list, BitSet cpus) {
        if (!cpus.isEmpty()) list.add(cpus);
    }

    static Element firstChild(Element e, String tag) {
        for (Node c = e.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c instanceof Element x && x.getTagName().equals(tag)) return x;
        }
        return null;
    }

    /**
     * An hwloc bitmap string: 32-bit hex words, most significant first ({@code 0x000000ff,0xffffffff});
     * hwloc leaves a zero word empty ({@code 0x000000ff,,0x0000ffff}). A leading {@code 0xf...f}
     * word marks an infinite set; no cpuset of a real machine is one.
     */
    static BitSet bitmap(String s) {
        String[] words = s.split(",");
        if (words[0].equals("0xf...f")) throw new IllegalArgumentException("infinite cpuset: " + s);
        BitSet b = new BitSet();
        for (int k = 0; k < words.length; k++) {
            String w = words[words.length - 1 - k].trim();
            long word = w.isEmpty() ? 0 : Long.parseLong(w.substring(2), 16);
            for (int bit = 0; bit < 32; bit++) {
                if ((word >>> bit & 1) != 0) b.set(32 * k + bit);
            }
        }
        return b;
    }

    /** Linux cpulist form: {@code 0-3,8,10-11}. */
    static String cpulist(BitSet b) {
        StringBuilder sb = new StringBuilder();
        for (int i = b.nextSetBit(0); i >= 0; ) {
            int end = b.nextClearBit(i) - 1;
            if (sb.length() > 0) sb.append(',');
            sb.append(i);
            if (end > i) sb.append('-').append(end);
            i = b.nextSetBit(end + 1);
        }
        return sb.toString();
    }

    /** The layout of the expected files: one value per line, one space of indent per level. */
    String json(BitSet allowed) {
        Comparator<BitSet> byLowestPu = Comparator.comparingInt(b -> b.nextSetBit(0));
        List<String> fields = new ArrayList<>();
        fields.add(field("online", str(cpulist(online)), 1));
        fields.add(field("allowed", str(cpulist(allowed)), 1));
        fields.add(field("packages", cpusets(packages, byLowestPu), 1));
        List<String> nodes = new ArrayList<>();
        numa.forEach((os, cpus) -> nodes.add(object(2, field("os", String.valueOf(os), 3), field("cpus", str(cpulist(cpus)), 3))));
        fields.add(field("numa", array(nodes, 1), 1));
        fields.add(field("l3", cpusets(l3, byLowestPu), 1));
        fields.add(field("l2", cpusets(l2, byLowestPu), 1));
        fields.add(field("cores", cpusets(cores, byLowestPu), 1));
        List<String> g = new ArrayList<>();
        gpus.forEach((pci, cpus) -> g.add(object(2, field("pci", str(pci), 3), field("cpus", str(cpulist(cpus)), 3))));
        fields.add(field("gpus", array(g, 1), 1));
        List<String> n = new ArrayList<>();
        nics.forEach((name, v) -> n.add(object(2, field("name", str(name), 3), field("pci", str(v[0]), 3), field("cpus", str(v[1]), 3))));
        fields.add(field("nics", array(n, 1), 1));
        return object(0, fields.toArray(String[]::new)) + "\n";
    }

    static String cpusets(List<BitSet> sets, Comparator<BitSet> order) {
        List<String> items = new ArrayList<>();
        sets.stream().sorted(order).forEach(b -> items.add(" ".repeat(2) + str(cpulist(b))));
        return array(items, 1);
    }

    static String field(String key, String value, int indent) {
        return " ".repeat(indent) + str(key) + ": " + value;
    }

    static String object(int indent, String... fields) {
        return " ".repeat(indent) + "{\n" + String.join(",\n", fields) + "\n" + " ".repeat(indent) + "}";
    }

    /** Items come indented one level deeper than {@code indent}. */
    static String array(List<String> items, int indent) {
        return items.isEmpty() ? "[]" : "[\n" + String.join(",\n", items) + "\n" + " ".repeat(indent) + "]";
    }

    static String str(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
