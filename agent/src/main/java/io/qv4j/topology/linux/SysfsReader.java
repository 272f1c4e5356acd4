package io.qv4j.topology.linux;

import io.qv4j.topology.Topology;
import io.qv4j.topology.TopologyException;

import java.nio.file.Path;

/**
 * Reads a Linux machine from sysfs and procfs: the live machine (root {@code /}) or a dump of one
 * (a file-system root holding {@code sys/} and {@code proc/}), through the same code.
 */
public final class SysfsReader {

    private SysfsReader() {
    }

    /** The machine this process runs on; the allowed set is this thread's affinity. */
    public static Topology live() {
        throw new TopologyException("TODO");
    }

    /** A dump under {@code root}; the allowed set comes from {@code proc/self/status} or the cgroup cpuset. */
    public static Topology read(Path root) {
        throw new TopologyException("TODO");
    }
}
