package io.qv4j.topology.linux;

import java.util.HashMap;
import java.util.Map;

/** CPUID answered from register values recorded per PU; leaves not recorded read as zeros, as on real CPUs past their range. */
final class RecordedCpuid implements Cpuid {

    private final Map<Integer, Map<Long, int[]>> byPu = new HashMap<>();
    private final Map<Long, int[]> common = new HashMap<>();
    private final ThreadLocal<Integer> current = ThreadLocal.withInitial(() -> -1);

    /** A leaf every PU answers alike; values as eax, ebx, ecx, edx in hex. */
    RecordedCpuid all(long leaf, int subleaf, String regs) {
        common.put(key(leaf, subleaf), parse(regs));
        return this;
    }

    /** A leaf only PU {@code pu} answers this way (APIC ids). */
    RecordedCpuid pu(int pu, long leaf, int subleaf, String regs) {
        byPu.computeIfAbsent(pu, k -> new HashMap<>()).put(key(leaf, subleaf), parse(regs));
        return this;
    }

    private static long key(long leaf, int subleaf) {
        return (leaf << 32) | subleaf;
    }

    private static int[] parse(String regs) {
        String[] r = regs.trim().split("\\s+");
        int[] out = new int[4];
        for (int i = 0; i < 4; i++) out[i] = (int) Long.parseLong(r[i], 16);
        return out;
    }

    @Override
    public String unavailable() {
        return null;
    }

    @Override
    public boolean moveTo(int pu) {
        if (!byPu.containsKey(pu)) return false;
        current.set(pu);
        return true;
    }

    @Override
    public int[] query(int leaf, int subleaf) {
        long k = key(leaf & 0xffffffffL, subleaf);
        int[] r = byPu.getOrDefault(current.get(), Map.of()).get(k);
        if (r == null) r = common.get(k);
        return r == null ? new int[4] : r.clone();
    }
}
