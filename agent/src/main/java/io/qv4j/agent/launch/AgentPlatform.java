package io.qv4j.agent.launch;

import io.qv4j.api.Binding;
import io.qv4j.api.Platform;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;

/**
 * The live {@link Platform} as {@code ServiceLoader} sees it wherever the agent jar is on the class
 * path: the real one ({@code io.qv4j.agent.platform.LivePlatform}) is hidden in the agent's own
 * class loader, so this visible class creates it there, on first use, and passes every call on.
 */
public final class AgentPlatform implements Platform {

    private volatile Platform live;

    /** For ServiceLoader. */
    public AgentPlatform() {
    }

    private Platform live() {
        Platform p = live;
        if (p == null) {
            synchronized (this) {
                if (live == null) {
                    try {
                        live = (Platform) Class.forName("io.qv4j.agent.platform.LivePlatform", true, AgentLauncher.loader())
                                .getConstructor().newInstance();
                    } catch (Exception e) {
                        throw new IllegalStateException("cannot start the qv4j platform: " + e, e);
                    }
                }
                p = live;
            }
        }
        return p;
    }

    @Override
    public Topology discover() {
        return live().discover();
    }

    @Override
    public Binding bind(CpuSet cpus) {
        return live().bind(cpus);
    }

    @Override
    public CpuSet currentBinding() {
        return live().currentBinding();
    }
}
