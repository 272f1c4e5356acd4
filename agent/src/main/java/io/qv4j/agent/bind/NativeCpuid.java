package io.qv4j.agent.bind;

import io.qv4j.topology.CpuSet;
import io.qv4j.topology.linux.Cpuid;

import java.util.Locale;

/**
 * CPUID through the agent's JNI library, for the sysfs reader on machines whose sysfs has no
 * caches. The library is loaded on first use only: on the normal path nothing here runs.
 */
final class NativeCpuid implements Cpuid {

    static final NativeCpuid INSTANCE = new NativeCpuid();

    private volatile String unavailable;
    private volatile boolean checked;

    private NativeCpuid() {
    }

    @Override
    public String unavailable() {
        if (!checked) {
            synchronized (this) {
                if (!checked) {
                    unavailable = check();
                    checked = true;
                }
            }
        }
        return unavailable;
    }

    private static String check() {
        String arch = System.getProperty("os.arch", "?").toLowerCase(Locale.ROOT);
        if (!arch.equals("amd64") && !arch.equals("x86_64")) return "CPUID exists only on x86 (this is " + arch + ")";
        if (NativeAffinity.load() == null) return "CPUID needs the agent's native library, which is not usable here";
        return null;
    }

    @Override
    public boolean moveTo(int pu) {
        return NativeAffinity.setAffinity(0, CpuSet.of(pu)) == 0;
    }

    @Override
    public int[] query(int leaf, int subleaf) {
        return NativeAffinity.cpuid(leaf, subleaf);
    }
}
