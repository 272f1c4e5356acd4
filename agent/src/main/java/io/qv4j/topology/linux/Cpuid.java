package io.qv4j.topology.linux;

/**
 * The x86 CPUID instruction, given to the live sysfs reader by whoever can execute it (the agent's
 * native library), so that this layer stays free of binding code. Used only where sysfs describes
 * no caches, never on the normal path.
 */
public interface Cpuid {

    /** Why CPUID cannot be used here (another architecture, no native library, binding off), or null when it can. */
    String unavailable();

    /** Moves the calling thread onto PU {@code pu} alone; false when this process may not run there. */
    boolean moveTo(int pu);

    /** {eax, ebx, ecx, edx} of CPUID({@code leaf}, {@code subleaf}) on the PU the calling thread runs on. */
    int[] query(int leaf, int subleaf);

    /** CPUID that is never available, saying why. */
    static Cpuid none(String why) {
        return new Cpuid() {
            @Override
            public String unavailable() {
                return why;
            }

            @Override
            public boolean moveTo(int pu) {
                return false;
            }

            @Override
            public int[] query(int leaf, int subleaf) {
                throw new UnsupportedOperationException(why);
            }
        };
    }
}
