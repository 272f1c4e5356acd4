package io.qv4j.topology;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.ErrorHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads hwloc v2 XML ({@code lstopo --of xml}) into a {@link Topology}; v1 files (no
 * {@code version}, {@code Socket}/{@code Node}/{@code Cache} types) are read too.
 *
 * <p>What counts:
 * <ul>
 * <li>online = the machine's {@code cpuset}: in hwloc 2 that is the PUs in the topology (disallowed
 *     ones included when exported with {@code --disallowed}); {@code complete_cpuset} also holds
 *     offline PUs, so it is not used. A v1 {@code online_cpuset} is intersected in.</li>
 * <li>allowed = the machine's {@code allowed_cpuset}, else its cpuset.</li>
 * <li>L1 is the data/unified L1 only; L3Cache counts whatever its subtype (the fixtures' summaries
 *     list KNL's MemorySideCache-subtyped L3s); MemCache, Group, Bridge, Misc are not objects here
 *     but their children are read.</li>
 * <li>GPU = a PCIDev of class 03xx (display), with or without an OS device (old XMLs have none).</li>
 * <li>NIC = a network OSDev ({@code osdev_type="2"}, which includes IPoIB {@code ib0}) below a
 *     PCIDev; it takes that PCIDev's bus id. OpenFabrics OSDevs ({@code mlx5_0}) are not NICs.</li>
 * <li>Device locality = cpuset of the nearest ancestor that has one (PCI objects have none).</li>
 * <li>Bitmaps as hwloc writes them ({@link CpuSet#parseMask(String)}); an infinite one
 *     ({@code 0xf...f}) covers every PU of the document above its finite words.</li>
 * </ul>
 */
public final class HwlocXml {

    /** hwloc OS device type for network interfaces (same value in v1 and v2). */
    private static final String OSDEV_NETWORK = "2";

    private HwlocXml() {
    }

    /** @throws TopologyException naming the file and what is wrong */
    public static Topology read(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new TopologyException(file + ": no such file");
        } catch (IOException e) {
            throw new TopologyException(file + ": cannot read: " + e.getMessage());
        }
        return parse(new ByteArrayInputStream(bytes), file.toString());
    }

    /** @throws TopologyException naming {@code sourceName} and what is wrong */
    public static Topology parse(InputStream in, String sourceName) {
        byte[] bytes;
        try {
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new TopologyException(sourceName + ": cannot read: " + e.getMessage());
        }
        Element root = parseDocument(bytes, sourceName).getDocumentElement();
        if (!"topology".equals(root.getTagName())) {
            throw new TopologyException(sourceName + ": not hwloc XML: root element is <" + root.getTagName() + ">, expected <topology>");
        }
        Element machine = firstChild(root, "object");
        if (machine == null) throw new TopologyException(sourceName + ": not hwloc XML: <topology> has no <object>");
        try {
            return new Reader(sourceName).read(root, machine);
        } catch (IllegalArgumentException e) { // bad cpuset attribute, builder consistency checks
            String msg = e.getMessage();
            throw new TopologyException(msg.startsWith(sourceName) ? msg : sourceName + ": " + msg);
        }
    }

    private static Document parseDocument(byte[] bytes, String sourceName) {
        int first = 0;
        if (bytes.length >= 3 && (bytes[0] & 0xff) == 0xef && (bytes[1] & 0xff) == 0xbb && (bytes[2] & 0xff) == 0xbf) first = 3;
        while (first < bytes.length && Character.isWhitespace(bytes[first])) first++;
        if (first == bytes.length) throw new TopologyException(sourceName + ": not hwloc XML: the file is empty");
        if (bytes[first] != '<') throw new TopologyException(sourceName + ": not XML: it does not start with '<'");
        try {
            DocumentBuilder db = factory().newDocumentBuilder();
            // Anything external (the DOCTYPE's hwloc2.dtd, entities) resolves to nothing: never fetched.
            db.setEntityResolver((publicId, systemId) -> new InputSource(new StringReader("")));
            db.setErrorHandler(new ErrorHandler() { // the default one prints to stderr
                @Override
                public void warning(SAXParseException e) {
                }

                @Override
                public void error(SAXParseException e) throws SAXException {
                    throw e;
                }

                @Override
                public void fatalError(SAXParseException e) throws SAXException {
                    throw e;
                }
            });
            return db.parse(new ByteArrayInputStream(bytes), sourceName);
        } catch (SAXParseException e) {
            throw new TopologyException(sourceName + ": truncated or malformed XML at line " + e.getLineNumber() + ": " + e.getMessage());
        } catch (SAXException | IOException e) {
            throw new TopologyException(sourceName + ": malformed XML: " + e.getMessage());
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the JDK XML parser lacks a hardening feature", e);
        }
    }

    /** DTDs are not loaded, external entities not resolved, XInclude off (XXE hardening). */
    private static DocumentBuilderFactory factory() throws ParserConfigurationException {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(false);
        f.setValidating(false);
        f.setXIncludeAware(false);
        f.setExpandEntityReferences(false);
        f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        f.setFeature("http://xml.org/sax/features/external-general-entities", false);
        f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
        f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
        f.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
        return f;
    }

    /** One pass over the object tree, feeding a builder. */
    private static final class Reader {
        private final String source;
        private final TopologyBuilder builder;
        private final BitSet puUnion = new BitSet();
        private CpuSet allPus; // computed when an infinite bitmap needs it
        private int puCount;

        Reader(String source) {
            this.source = source;
            this.builder = new TopologyBuilder(source);
        }

        Topology read(Element topology, Element machine) {
            CpuSet machineSet = cpuset(machine, "cpuset");
            walk(machine, machineSet == null ? CpuSet.empty() : machineSet, null);
            if (puCount == 0) throw new TopologyException(source + ": no PU objects in the topology");
            CpuSet online = machineSet == null ? CpuSet.of(puUnion) : machineSet;
            CpuSet v1Online = cpuset(machine, "online_cpuset");
            if (v1Online != null) online = online.and(v1Online);
            CpuSet allowed = cpuset(machine, "allowed_cpuset");
            builder.online(online).allowed(allowed == null ? online : allowed);
            readCpuKinds(topology);
            return builder.build();
        }

        /**
         * @param near   cpuset of the nearest ancestor (or this object) that has one
         * @param pciDev the nearest PCIDev ancestor, for network OS devices
         */
        private void walk(Element obj, CpuSet near, Element pciDev) {
            String type = obj.getAttribute("type");
            CpuSet cpus = cpuset(obj, "cpuset");
            if (cpus != null) near = cpus;
            int os = intAttr(obj, "os_index", -1);
            switch (type) {
                case "Package", "Socket" -> builder.add(HwType.PACKAGE, os, need(cpus, obj));
                case "Die" -> builder.add(HwType.DIE, os, need(cpus, obj));
                case "NUMANode", "Node" -> builder.numaNode(os, cpus == null ? CpuSet.empty() : cpus, longAttr(obj, "local_memory"));
                case "L3Cache" -> builder.cache(HwType.L3, -1, need(cpus, obj), cacheSize(obj));
                case "L2Cache" -> builder.cache(HwType.L2, -1, need(cpus, obj), cacheSize(obj));
                case "L1Cache" -> builder.cache(HwType.L1, -1, need(cpus, obj), cacheSize(obj));
                case "Cache" -> { // v1 and early v2: level in depth=, cache_type 2 = instruction
                    HwType t = switch (intAttr(obj, "depth", 0)) {
                        case 1 -> HwType.L1;
                        case 2 -> HwType.L2;
                        case 3 -> HwType.L3;
                        default -> null;
                    };
                    if (t != null && intAttr(obj, "cache_type", 0) != 2) builder.cache(t, -1, need(cpus, obj), cacheSize(obj));
                }
                case "Core" -> builder.add(HwType.CORE, os, need(cpus, obj));
                case "PU" -> { // PUs are made from the online set; here we only check there are some
                    // a small file can list many PUs, and a topology's memory grows faster than its PU count
                    if (++puCount > SyntheticSpec.MAX_PUS) {
                        throw new TopologyException(source + ": more than " + SyntheticSpec.MAX_PUS + " PU objects (the most Linux supports)");
                    }
                    if (os > CpuSet.MAX_INDEX) throw new TopologyException(source + ": PU os_index " + os + " above " + CpuSet.MAX_INDEX);
                    if (os >= 0) puUnion.set(os);
                }
                case "PCIDev" -> {
                    pciDev = obj;
                    if (pciClass(obj).startsWith("03")) {
                        builder.device(new Device(HwType.GPU, obj.getAttribute("pci_busid"), gpuName(obj), near));
                    }
                }
                case "OSDev" -> {
                    if (pciDev != null && OSDEV_NETWORK.equals(obj.getAttribute("osdev_type"))) {
                        builder.device(new Device(HwType.NIC, pciDev.getAttribute("pci_busid"), obj.getAttribute("name"), near));
                    }
                }
                default -> { // Machine, Group, MemCache, Bridge, Misc, L1iCache, L4Cache...: children only
                }
            }
            if (type.equals("Package") || type.equals("Socket") || type.equals("Machine")) {
                builder.info("cpu.model", info(obj, "CPUModel"));
                builder.info("cpu.vendor", info(obj, "CPUVendor"));
            }
            if (type.equals("Machine")) builder.info("host.name", info(obj, "HostName"));
            for (Element child : children(obj, "object")) walk(child, near, pciDev);
        }

        /**
         * hwloc 2.4+ exports {@code <cpukind cpuset="..." forced_efficiency="N">} elements with
         * {@code <info name value>} children; their efficiency is not in the file: hwloc ranks
         * them again from those, as {@link CpuKinds} does. Registered in file order; at most
         * {@value #MAX_CPU_KINDS} (machines have two to four; merging is quadratic).
         */
        private void readCpuKinds(Element topology) {
            List<Element> kinds = children(topology, "cpukind");
            if (kinds.size() > MAX_CPU_KINDS) {
                throw new TopologyException(source + ": " + kinds.size() + " <cpukind> elements, more than " + MAX_CPU_KINDS);
            }
            for (Element k : kinds) {
                CpuSet set = cpuset(k, "cpuset");
                if (set == null) throw new TopologyException(source + ": <cpukind> without a cpuset");
                Map<String, String> info = new LinkedHashMap<>();
                for (Element i : children(k, "info")) info.put(i.getAttribute("name"), i.getAttribute("value"));
                String forced = k.getAttribute("forced_efficiency");
                builder.cpuKind(set, info, forced.isEmpty() ? -1 : parseForced(forced));
            }
        }

        static final int MAX_CPU_KINDS = 64;

        private int parseForced(String v) {
            try {
                return Integer.parseInt(v.strip());
            } catch (NumberFormatException e) {
                throw new TopologyException(source + ": <cpukind> forced_efficiency '" + v + "' is not a number");
            }
        }

        private CpuSet need(CpuSet cpus, Element obj) {
            if (cpus == null) throw new TopologyException(source + ": " + obj.getAttribute("type") + " object without a cpuset");
            return cpus;
        }

        /** What carries a bad attribute, for its message: {@code a Package object}, {@code a <cpukind> element}. */
        private static String where(Element e) {
            if (!e.getTagName().equals("object")) return "a <" + e.getTagName() + "> element";
            return e.getAttribute("type").isEmpty() ? "an object without a type" : "a " + e.getAttribute("type") + " object";
        }

        private CpuSet cpuset(Element e, String attr) {
            String v = e.getAttribute(attr);
            if (v.isEmpty()) return null;
            try {
                return CpuSet.parseMask(v, v.strip().startsWith("0xf...f") ? allPus(e) : null);
            } catch (IllegalArgumentException ex) {
                throw new TopologyException(source + ": bad " + attr + " '" + v + "' on " + where(e) + ": " + ex.getMessage());
            }
        }

        /**
         * Every PU's os_index in the document: what hwloc's infinite bitmaps ({@code 0xf...f},
         * "all from here on") stand for in a finite machine.
         */
        private CpuSet allPus(Element any) {
            if (allPus == null) {
                BitSet b = new BitSet();
                NodeList objects = any.getOwnerDocument().getElementsByTagName("object");
                for (int i = 0; i < objects.getLength(); i++) {
                    Element o = (Element) objects.item(i);
                    int os = "PU".equals(o.getAttribute("type")) ? intAttr(o, "os_index", -1) : -1;
                    if (os > CpuSet.MAX_INDEX) throw new TopologyException(source + ": PU os_index " + os + " above " + CpuSet.MAX_INDEX);
                    if (os >= 0) b.set(os);
                }
                allPus = CpuSet.of(b);
            }
            return allPus;
        }

        private int intAttr(Element e, String attr, int dflt) {
            String v = e.getAttribute(attr);
            if (v.isEmpty()) return dflt;
            try {
                return Integer.parseInt(v.strip());
            } catch (NumberFormatException ex) {
                throw new TopologyException(source + ": bad " + attr + " '" + v + "' on " + where(e));
            }
        }

        /** {@code cache_size} in bytes, as hwloc writes it; 0 (unknown) where absent or negative. */
        private long cacheSize(Element e) {
            return Math.max(0, longAttr(e, "cache_size"));
        }

        private long longAttr(Element e, String attr) {
            String v = e.getAttribute(attr);
            try {
                return v.isEmpty() ? 0 : Long.parseLong(v.strip());
            } catch (NumberFormatException ex) {
                throw new TopologyException(source + ": bad " + attr + " '" + v + "' on " + where(e));
            }
        }
    }

    /** The class from {@code pci_type="0302 [10de:1db8] ..."}: the first four hex digits, lowercase. */
    private static String pciClass(Element pciDev) {
        String t = pciDev.getAttribute("pci_type").strip();
        return t.length() >= 4 ? t.substring(0, 4).toLowerCase() : "";
    }

    /** A GPU OS device's model (CUDA, NVML, OpenCL...), else the PCI device name, else "". */
    private static String gpuName(Element pciDev) {
        for (Element osdev : children(pciDev, "object")) {
            String model = info(osdev, "GPUModel");
            if (model != null && !model.isBlank()) return model.strip();
        }
        String dev = info(pciDev, "PCIDevice");
        return dev == null ? "" : dev.strip();
    }

    private static String info(Element obj, String name) {
        for (Element i : children(obj, "info")) {
            if (name.equals(i.getAttribute("name"))) return i.getAttribute("value");
        }
        return null;
    }

    private static Element firstChild(Element e, String tag) {
        List<Element> c = children(e, tag);
        return c.isEmpty() ? null : c.get(0);
    }

    private static List<Element> children(Element e, String tag) {
        List<Element> out = new ArrayList<>();
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element c && c.getTagName().equals(tag)) out.add(c);
        }
        return out;
    }
}
