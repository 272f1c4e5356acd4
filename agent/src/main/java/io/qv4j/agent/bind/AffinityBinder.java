package io.qv4j.agent.bind;

import io.qv4j.agent.log.Log;
import io.qv4j.topology.CpuSet;
import net.openhft.affinity.Affinity;

/**
 * OpenHFT {@code Affinity.setAffinity(BitSet)} on the calling thread: one {@code sched_setaffinity}
 * through JNA. Never {@code AffinityLock} (it silently takes other CPUs and ignores cpusets).
 */
public final class AffinityBinder implements Binder {

    private final String impl;

    private AffinityBinder(String impl) {
        this.impl = impl;
    }

    /** The binder, or {@link Binder#NONE} after saying once why native binding is unavailable. */
    public static Binder create() {
        String name;
        try {
            name = Affinity.getAffinityImpl().getClass().getSimpleName();
        } catch (Throwable t) {
            Log.once("nobind", "native thread binding unavailable (" + t + "): running unpinned");
            return Binder.NONE;
        }
        if (!name.equals("LinuxJNAAffinity") && !name.equals("PosixJNAAffinity")) {
            Log.once("nobind", "native thread binding unavailable (OpenHFT affinity: " + name
                    + ", needs Linux and JNA): running unpinned");
            return Binder.NONE;
        }
        return new AffinityBinder(name);
    }

    @Override
    public boolean bind(CpuSet cpus) {
        try {
            Affinity.setAffinity(cpus.toBitSet());
            return true;
        } catch (Throwable t) {
            Log.once("bindfail", "binding a thread to " + cpus + " failed (" + t + "); such threads run unpinned");
            return false;
        }
    }

    @Override
    public String describe() {
        return "openhft " + impl;
    }
}
