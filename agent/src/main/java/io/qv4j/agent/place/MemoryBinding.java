package io.qv4j.agent.place;

import io.qv4j.agent.log.Log;
import io.qv4j.api.Memory;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.Topology;

import java.util.BitSet;
import java.util.Locale;

/**
 * A pinned worker's memory policy, set by the worker on itself each time it binds itself (DESIGN.md
 * §7.3): {@code bind} to the NUMA nodes of its piece, {@code interleave} over those of its pool's
 * scope; {@code local}, the default, makes no system call. Where the kernel refuses (a cpuset's
 * {@code mems}, a kernel without NUMA) one line says so and the worker keeps the kernel's default.
 * Threads inherit their creator's policy as they do its mask: once some worker set one, a thread
 * that gets its mask back ({@link ApplicationBound}) or joins a {@code local} pool gets the
 * kernel's default back too. One per {@link Placer}.
 */
final class MemoryBinding {

    /** Some worker of this JVM set a policy other than the default: threads may have inherited it. */
    private volatile boolean set;

    /** Sets {@code w}'s policy on the calling thread, which is {@code w}'s, just bound to {@code w.cpuset}. */
    void apply(Worker w, Env e) {
        Pool p = w.pool;
        Memory m = p.memory;
        if (m == Memory.LOCAL) {
            if (set) reset(e);
            return;
        }
        if (!e.binder().binds() || e.topology() == null) return;
        CpuSet nodes = nodes(e.topology(), m == Memory.BIND ? w.cpuset : p.scope);
        String word = "memory=" + m.name().toLowerCase(Locale.ROOT);
        if (nodes.isEmpty()) {
            Log.once("memory:nodes", word + ": the topology names no NUMA node with CPUs of pool " + p.name + ": new pages go where first touched");
            return;
        }
        int rc = e.binder().bindMemory(m, nodes.toBitSet());
        if (rc == 0) {
            w.memoryNodes = nodes;
            set = true;
            return;
        }
        w.memoryNodes = null;
        if (rc < 0) {
            Log.once("memory:binder", word + " needs the agent's JNI library, not in use here (binder " + e.binder().describe() + "): new pages go where first touched");
        } else {
            Log.once("memory:" + rc, word + " on nodes " + nodes + " (pool " + p.name + "): the kernel refused (errno " + rc + why(rc) + "): new pages go where first touched");
        }
    }

    /** The calling thread, which may have inherited a worker's policy, gets the kernel's default back. */
    void reset(Env e) {
        if (set && e.binder().binds()) e.binder().bindMemory(Memory.LOCAL, new BitSet());
    }

    /** {@code ", memory bind nodes 1"} for a verbose line; empty where the kernel's default holds. */
    static String describe(Worker w) {
        CpuSet n = w.memoryNodes;
        return n == null ? "" : ", memory " + w.pool.memory.name().toLowerCase(Locale.ROOT) + " nodes " + n;
    }

    /** The OS indexes of the NUMA nodes whose CPUs meet {@code cpus}. */
    static CpuSet nodes(Topology t, CpuSet cpus) {
        BitSet b = new BitSet();
        if (cpus != null) for (HwObject n : t.numaNodes()) if (n.osIndex() >= 0 && n.cpuset().intersects(cpus)) b.set(n.osIndex());
        return CpuSet.of(b);
    }

    private static String why(int errno) {
        return switch (errno) {
            case 22 -> ", EINVAL: a node outside the cpuset's mems, or one without memory";
            case 1 -> ", EPERM";
            case 38 -> ", ENOSYS: a kernel without NUMA";
            default -> "";
        };
    }
}
