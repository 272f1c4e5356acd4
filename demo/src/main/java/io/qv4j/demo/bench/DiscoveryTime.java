package io.qv4j.demo.bench;

import io.qv4j.agent.platform.TopologyCache;
import io.qv4j.topology.Topology;
import io.qv4j.topology.linux.SysfsReader;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Prints how long topology discovery takes in a fresh JVM, cold classes included: the cost the
 * agent pays at start-up. {@code scripts/discovery-time} runs it in fresh JVMs and takes medians.
 *
 * <pre>
 * DiscoveryTime                            the live machine, read from sysfs
 * DiscoveryTime --fsroot DIR               a sysfs/procfs dump, read the same way
 * DiscoveryTime --fsroot DIR --keep FILE   reads the dump (untimed) and writes the entry the agent would keep for it
 * DiscoveryTime --entry FILE               that entry decoded: what a start with a kept topology pays
 * </pre>
 */
public final class DiscoveryTime {

    private static final String KEY = "discovery-time";

    private DiscoveryTime() {
    }

    public static void main(String[] args) throws IOException {
        Path root = args.length >= 2 && args[0].equals("--fsroot") ? Path.of(args[1]) : null;
        if (root != null && args.length == 4 && args[2].equals("--keep")) {
            Files.write(Path.of(args[3]), TopologyCache.encode(SysfsReader.read(root), KEY));
            return;
        }
        Path entry = args.length == 2 && args[0].equals("--entry") ? Path.of(args[1]) : null;
        byte[] bytes = entry == null ? null : Files.readAllBytes(entry);
        try {
            // opens the agent's jar before the clock starts: the agent's own start has it open
            Class.forName("io.qv4j.agent.log.Log", false, DiscoveryTime.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the agent's classes are not on the class path", e);
        }
        long t0 = System.nanoTime();
        Topology t = bytes != null ? TopologyCache.decode(bytes, KEY, null) : root != null ? SysfsReader.read(root) : SysfsReader.live();
        long t1 = System.nanoTime();
        if (t == null) throw new IllegalArgumentException(entry + ": not an entry this build wrote");
        System.out.printf(Locale.ROOT, "%.2f ms %d PUs%n", (t1 - t0) / 1e6, t.pus().size());
    }
}
