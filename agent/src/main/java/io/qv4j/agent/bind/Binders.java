package io.qv4j.agent.bind;

import io.qv4j.agent.config.Options;
import io.qv4j.topology.linux.Cpuid;

/** The binder for a bind mode, chosen once: the only place that knows the modes and the fallbacks. */
public final class Binders {

    private Binders() {
    }

    /**
     * {@code on}: the agent's JNI library (about a millisecond to load), else OpenHFT affinity
     * through JNA (130-170 ms cold), else none (said once); {@code dry-run}: {@link Binder#DRY_RUN};
     * {@code off}: {@link Binder#NONE}.
     */
    public static Binder choose(Options.Bind mode) {
        switch (mode) {
            case OFF:
                return Binder.NONE;
            case DRY_RUN:
                return Binder.DRY_RUN;
            default:
                Binder fast = NativeAffinity.load();
                return fast != null ? fast : AffinityBinder.create();
        }
    }

    /**
     * CPUID for a bind mode, for the caches of machines whose sysfs has none: through the agent's
     * JNI library (loaded only when asked), except under {@code bind=off}, which loads no native code.
     */
    public static Cpuid cpuid(Options.Bind mode) {
        return mode == Options.Bind.OFF ? Cpuid.none("bind=off loads no native code for CPUID") : NativeCpuid.INSTANCE;
    }
}
