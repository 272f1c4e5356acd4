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

    /**
     * The platform in use: the one {@linkplain #install installed}, else the first provider
     * {@link java.util.ServiceLoader} finds (looked up once, lazily). Thread-safe.
     *
     * @throws IllegalStateException when none is installed and no provider is on the class path
     */
    static Platform current() {
        return Platforms.current();
    }

    /**
     * Makes {@code platform} the one {@link #current()} returns, for every thread; {@code null}
     * uninstalls it, so that {@link #current()} falls back to the service provider again. Meant
     * for the agent at start-up, tests and dry runs.
     */
    static void install(Platform platform) {
        Platforms.install(platform);
    }
}
