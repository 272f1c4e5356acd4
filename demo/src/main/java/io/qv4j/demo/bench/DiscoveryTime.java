package io.qv4j.demo.bench;

import io.qv4j.topology.Topology;
import io.qv4j.topology.linux.SysfsReader;

/**
 * Prints how long live topology discovery takes in a fresh JVM, cold classes included: the cost
 * the agent pays at start-up. {@code scripts/discovery-time} runs it in 10 JVMs and takes the median.
 */
public final class DiscoveryTime {

    private DiscoveryTime() {
    }

    public static void main(String[] args) {
        long t0 = System.nanoTime();
        Topology t = SysfsReader.live();
        long t1 = System.nanoTime();
        System.out.printf(java.util.Locale.ROOT, "%.2f ms %d PUs%n", (t1 - t0) / 1e6, t.pus().size());
    }
}
