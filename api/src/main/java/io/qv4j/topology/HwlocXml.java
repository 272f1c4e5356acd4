package io.qv4j.topology;

import java.nio.file.Path;

/** Reads hwloc v2 XML ({@code lstopo --of xml}) into a {@link Topology}. */
public final class HwlocXml {

    private HwlocXml() {
    }

    /** @throws TopologyException naming the file and what is wrong */
    public static Topology read(Path file) {
        throw new TopologyException("TODO");
    }
}
