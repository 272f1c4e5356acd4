package io.qv4j.api;

import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;

/**
 * What the engine needs from the operating system: the topology, and binding the calling thread.
 * The agent provides the real one; {@code RecordingPlatform} serves tests and dry runs.
 */
public interface Platform {

    /** The machine this process runs on, allowed set included. */
    Topology discover();

    /** Binds the calling thread to {@code cpus}; returns a handle that restores the previous binding. */
    Binding bind(CpuSet cpus);

    /** The calling thread's current binding (its allowed PUs). */
    CpuSet currentBinding();

    /** The platform in use: the installed one, else one found by {@link java.util.ServiceLoader}. */
    static Platform current() {
        throw new UnsupportedOperationException("TODO");
    }
}
