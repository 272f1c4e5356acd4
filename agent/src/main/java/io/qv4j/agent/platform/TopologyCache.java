package io.qv4j.agent.platform;

import io.qv4j.agent.io.UserCache;
import io.qv4j.topology.CpuKind;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Device;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.HwType;
import io.qv4j.topology.Topology;
import io.qv4j.topology.TopologyBuilder;
import io.qv4j.topology.linux.Cpuid;
import io.qv4j.topology.linux.SysfsReader;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * The live machine's topology kept between starts, so that a start reads a handful of files
 * instead of the whole of sysfs (thousands of files on a large server) and asks CPUID nothing. An
 * entry holds the facts a reading found (the objects with their cpusets and sizes, the NUMA nodes,
 * the devices, the info) and is used only while everything it depends on is unchanged: the agent's
 * build and the {@link SysfsReader.LiveState} (boot, online CPUs and NUMA nodes, PCI devices and
 * network interfaces, this thread's allowed set). A reboot, CPU hot-plug, a new device or another
 * {@code taskset} reads the machine again.
 *
 * <p>Entries live in the per-user cache directory ({@link UserCache}: owner-only, never another
 * user's, no links followed), repeat their key in full and end with a CRC-32 of everything before
 * it; an entry that is truncated, changed or of another key is ignored and written anew.
 */
public final class TopologyCache {

    static final String SUFFIX = ".qvtopo";
    static final int KEEP = 16;
    /** 8,192 PUs with their caches and devices stay well below this. */
    private static final int MAX_ENTRY = 8 << 20;
    private static final String MAGIC = "qv4j-topology 1";
    private static final String SOURCE = "live";

    /** Where the live state comes from: {@link SysfsReader#liveState}, or a test's. */
    interface States {
        SysfsReader.LiveState read(boolean cpuid);
    }

    private static final States LIVE = new States() { // no method reference: cold invokedynamic costs milliseconds
        @Override
        public SysfsReader.LiveState read(boolean cpuid) {
            return SysfsReader.liveState(cpuid);
        }
    };

    private final Path dir;
    private final String buildId;
    private final States states;
    private boolean hit;

    TopologyCache(Path dir, String buildId) {
        this(dir, buildId, LIVE);
    }

    TopologyCache(Path dir, String buildId, States states) {
        this.dir = dir;
        this.buildId = buildId;
        this.states = states;
    }

    /** The cache for this agent build in the per-user directory; one that never holds anything where there is none. */
    public static TopologyCache open() {
        String id = UserCache.buildId();
        return new TopologyCache(id == null ? null : UserCache.dir(), id);
    }

    /** Whether the last {@link #live} came from the cache. */
    public boolean hit() {
        return hit;
    }

    /** The live machine as {@link SysfsReader#live(Cpuid)} reads it, from the cache where an earlier start kept it. */
    public Topology live(Cpuid cpuid) {
        hit = false;
        boolean asksCpuid = cpuid != null && cpuid.unavailable() == null;
        SysfsReader.LiveState state = state(asksCpuid);
        if (state == null) return SysfsReader.live(cpuid);
        String key = buildId + '\n' + state.fingerprint();
        Path file = dir.resolve(fileName(key));
        byte[] bytes = UserCache.read(file, MAX_ENTRY);
        Topology t = bytes == null ? null : decode(bytes, key, state.allowed());
        if (t != null) {
            hit = true;
            return SysfsReader.withLiveIsolation(t);
        }
        t = SysfsReader.live(cpuid);
        // kept only when nothing changed during the reading (the allowed set above all)
        SysfsReader.LiveState after = state(asksCpuid);
        if (after != null && after.fingerprint().equals(state.fingerprint()) && t.allowed().equals(state.allowed().and(t.online()))) {
            try {
                UserCache.write(dir, file.getFileName().toString(), encode(t, key));
                UserCache.trim(dir, SUFFIX, KEEP);
            } catch (IOException | RuntimeException e) {
                // not kept: the next start reads the machine again
            }
        }
        return t;
    }

    /**
     * The live state, or null where there is no cache directory or the state cannot be read: then
     * the machine is read as if nothing were kept, never worse than without the cache.
     */
    private SysfsReader.LiveState state(boolean asksCpuid) {
        if (dir == null) return null;
        try {
            return states.read(asksCpuid);
        } catch (RuntimeException unreadable) {
            return null;
        }
    }

    /** The build id and a CRC-32 of the whole key: the file's content holds the key itself. */
    private static String fileName(String key) {
        CRC32 crc = new CRC32();
        crc.update(key.getBytes(StandardCharsets.UTF_8));
        return "topology-" + key.substring(0, key.indexOf('\n')) + "-" + Long.toHexString(crc.getValue()) + SUFFIX;
    }

    /**
     * One line per fact, fields separated by tabs, text last: the magic line, the key's length and
     * the key, {@code online}, {@code obj TYPE OS CPUS BYTES} (everything in the tree but the
     * machine, NUMA nodes and PUs), {@code numa OS CPUS BYTES}, {@code kind FORCED CPUS [NAME VALUE]...}
     * (the CPU kinds in their order, registered again as found),
     * {@code dev TYPE CPUS PCI NAME}, {@code info KEY VALUE}; then {@code crc} and the CRC-32 in hex.
     */
    public static byte[] encode(Topology t, String key) {
        StringBuilder s = new StringBuilder(4096);
        s.append(MAGIC).append('\n').append(key.length()).append('\n').append(key).append('\n');
        s.append("online\t").append(t.online()).append('\n');
        objects(s, t.root());
        for (HwObject n : t.numaNodes()) {
            s.append("numa\t").append(n.osIndex()).append('\t').append(n.cpuset()).append('\t').append(n.memoryBytes()).append('\n');
        }
        for (CpuKind k : t.cpuKinds()) {
            s.append("kind\t").append(k.forcedEfficiency()).append('\t').append(k.cpus());
            for (Map.Entry<String, String> e : k.info().entrySet()) s.append('\t').append(text(e.getKey())).append('\t').append(text(e.getValue()));
            s.append('\n');
        }
        for (Device d : t.devices()) {
            s.append("dev\t").append(d.type().name()).append('\t').append(d.locality()).append('\t').append(text(d.pci())).append('\t').append(text(d.name())).append('\n');
        }
        for (Map.Entry<String, String> e : t.info().entrySet()) {
            s.append("info\t").append(text(e.getKey())).append('\t').append(text(e.getValue())).append('\n');
        }
        byte[] body = s.toString().getBytes(StandardCharsets.UTF_8);
        CRC32 crc = new CRC32();
        crc.update(body);
        byte[] tail = ("crc\t" + Long.toHexString(crc.getValue()) + "\n").getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[body.length + tail.length];
        System.arraycopy(body, 0, out, 0, body.length);
        System.arraycopy(tail, 0, out, body.length, tail.length);
        return out;
    }

    private static void objects(StringBuilder s, HwObject o) {
        for (HwObject c : o.children()) {
            if (c.type() != HwType.PU && c.type() != HwType.NUMANODE) {
                s.append("obj\t").append(c.type().name()).append('\t').append(c.osIndex()).append('\t').append(c.cpuset()).append('\t').append(c.cacheSize()).append('\n');
            }
            objects(s, c);
        }
    }

    /** A field as written: no tab or line break can split the line (none occurs in what sysfs gives). */
    private static String text(String v) {
        if (v.indexOf('\t') >= 0 || v.indexOf('\n') >= 0) throw new IllegalArgumentException("a tab or line break in " + v);
        return v;
    }

    /**
     * The topology an entry holds, with this start's {@code allowed} set (null: all online PUs);
     * null when it is damaged or of another key.
     */
    public static Topology decode(byte[] file, String key, CpuSet allowed) {
        try {
            int end = lastLineStart(file);
            String tail = new String(file, end, file.length - end, StandardCharsets.US_ASCII);
            if (!tail.startsWith("crc\t") || !tail.endsWith("\n")) return null;
            CRC32 crc = new CRC32();
            crc.update(file, 0, end);
            if (!Long.toHexString(crc.getValue()).equals(tail.substring(4, tail.length() - 1))) return null;
            String body = new String(file, 0, end, StandardCharsets.UTF_8);
            int at = body.indexOf('\n');
            if (at < 0 || !body.substring(0, at).equals(MAGIC)) return null;
            int nl = body.indexOf('\n', at + 1);
            int keyLength = Integer.parseInt(body.substring(at + 1, nl));
            if (keyLength != key.length() || !body.startsWith(key, nl + 1) || body.charAt(nl + 1 + keyLength) != '\n') return null;
            TopologyBuilder b = new TopologyBuilder(SOURCE);
            if (allowed != null) b.allowed(allowed);
            int i = nl + 2 + keyLength;
            while (i < body.length()) {
                int lineEnd = body.indexOf('\n', i);
                if (lineEnd < 0) return null;
                fact(b, split(body.substring(i, lineEnd)));
                i = lineEnd + 1;
            }
            return b.build();
        } catch (RuntimeException damaged) {
            return null;
        }
    }

    private static int lastLineStart(byte[] file) {
        int i = file.length - 2;
        while (i >= 0 && file[i] != '\n') i--;
        return i + 1;
    }

    private static void fact(TopologyBuilder b, String[] f) {
        switch (f[0]) {
            case "online" -> b.online(CpuSet.parse(f[1]));
            case "obj" -> {
                HwType type = HwType.parse(f[1]);
                long bytes = Long.parseLong(f[4]);
                if (type.isCache()) b.cache(type, Integer.parseInt(f[2]), CpuSet.parse(f[3]), bytes);
                else b.add(type, Integer.parseInt(f[2]), CpuSet.parse(f[3]));
            }
            case "numa" -> b.numaNode(Integer.parseInt(f[1]), CpuSet.parse(f[2]), Long.parseLong(f[3]));
            case "kind" -> {
                Map<String, String> info = new LinkedHashMap<>();
                for (int i = 3; i + 1 < f.length; i += 2) info.put(f[i], f[i + 1]);
                b.cpuKind(CpuSet.parse(f[2]), info, Integer.parseInt(f[1]));
            }
            case "dev" -> b.device(new Device(HwType.parse(f[1]), f[3], f[4], CpuSet.parse(f[2])));
            case "info" -> b.info(f[1], f[2]);
            default -> throw new IllegalArgumentException("unknown fact " + f[0]);
        }
    }

    /** Tab-separated fields, empty ones kept. */
    private static String[] split(String line) {
        List<String> out = new ArrayList<>();
        int from = 0;
        for (int tab = line.indexOf('\t'); tab >= 0; tab = line.indexOf('\t', from)) {
            out.add(line.substring(from, tab));
            from = tab + 1;
        }
        out.add(line.substring(from));
        return out.toArray(new String[0]);
    }
}
