package io.qv4j.agent.platform;

import io.qv4j.agent.bind.Binder;
import io.qv4j.agent.bind.Binders;
import io.qv4j.agent.bind.VirtualThreads;
import io.qv4j.agent.config.Options;
import io.qv4j.api.Binding;
import io.qv4j.api.Platform;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;
import io.qv4j.topology.linux.SysfsReader;


/**
 * The real {@link Platform}, found by {@code ServiceLoader} wherever the agent jar is on the class
 * path (as {@code -javaagent} or plain {@code -cp}): the live machine from sysfs, binding through
 * the agent's JNI library, else OpenHFT affinity. The topology is read once.
 */
public final class LivePlatform implements Platform {

    private volatile Topology topology;
    private volatile Binder binder;

    /** For ServiceLoader. */
    public LivePlatform() {
    }

    @Override
    public Topology discover() {
        Topology t = topology;
        if (t == null) {
            synchronized (this) {
                if (topology == null) {
                    topology = SysfsReader.live(Binders.cpuid(Options.Bind.ON));
                }
                t = topology;
            }
        }
        return t;
    }

    private Binder binder() {
        Binder b = binder;
        if (b == null) {
            synchronized (this) {
                if (binder == null) {
                    binder = Binders.choose(Options.Bind.ON);
                }
                b = binder;
            }
        }
        return b;
    }

    /** What {@link #bind} placed the calling thread on (innermost binding still open), or null. */
    public static CpuSet placed() {
        return PLACED.get();
    }

    private static final ThreadLocal<CpuSet> PLACED = new ThreadLocal<>();

    @Override
    public Binding bind(CpuSet cpus) {
        if (VirtualThreads.current()) {
            VirtualThreads.skipped("Scope.bind()");
            return new Binding() {
                @Override
                public CpuSet cpuset() {
                    return cpus;
                }

                @Override
                public void close() {
                }
            };
        }
        CpuSet previous = currentBinding();
        Binder b = binder();
        if (!b.bind(cpus)) throw new IllegalStateException("cannot bind the thread to " + cpus + " (" + b.describe() + ")");
        Thread owner = Thread.currentThread();
        CpuSet outer = PLACED.get();
        PLACED.set(cpus);
        return new Binding() {
            @Override
            public CpuSet cpuset() {
                return cpus;
            }

            @Override
            public void close() {
                try {
                    if (Thread.currentThread() != owner) return;
                    PLACED.set(outer);
                    if (previous != null) b.bind(previous);
                } catch (Throwable ignored) {
                    // never throws
                }
            }
        };
    }

    @Override
    public CpuSet currentBinding() {
        binder(); // loads the JNI library when there is one
        CpuSet c = Binder.currentMask();
        if (c != null) return c;
        return discover().allowed();
    }
}
