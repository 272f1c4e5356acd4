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
 * The option's word is also the JVM piece's policy, set by premain on the main thread, which the
 * threads it creates later inherit ({@link #jvm}). Threads inherit their creator's policy as they
 * do its mask: a thread that gets its mask back ({@link ApplicationBound}) gets the JVM piece's
 * policy back too, and a worker of a {@code local} pool the kernel's default. One per {@link Placer}.
 */
final class MemoryBinding {

    /** Some thread of this JVM set a policy other than the default: threads may have inherited it. */
    private volatile boolean set;

    /** A policy over some nodes. */
    private record Policy(Memory memory, CpuSet nodes) {
        @Override
        public String toString() {
            return memory.name().toLowerCase(Locale.ROOT) + " nodes " + nodes;
        }
    }

    /** The JVM piece's policy, set on the main thread at start-up; null: the kernel's default. */
    private volatile Policy jvm;

    /** Sets {@code w}'s policy on the calling thread, which is {@code w}'s, just bound to {@code w.cpuset}. */
    void apply(Worker w, Env e) {
        Pool p = w.pool;
        Memory m = p.memory;
        if (m == Memory.LOCAL) {
            if (set && e.binder().binds()) e.binder().bindMemory(Memory.LOCAL, new BitSet()); // not the JVM piece's: local is first touch
            return;
        }
        if (!e.binder().binds() || e.topology() == null) return;
        CpuSet nodes = nodes(e.topology(), m == Memory.BIND ? w.cpuset : p.scope);
        w.memoryNodes = set(e, m, nodes, "pool " + p.name) ? nodes : null;
    }

    /**
     * Sets {@code m} for the JVM's piece on the calling thread, premain's: the main thread, and the
     * threads it creates from now on, put new pages on the nodes of the JVM scope (DESIGN.md §7.3).
     * {@code bind} over every node of the machine is left out: it would change nothing but take the
     * pages out of the kernel's automatic NUMA balancing.
     */
    void jvm(Env e, Memory m) {
        if (m == Memory.LOCAL || !e.binder().binds() || e.topology() == null || e.jvm() == null) return;
        CpuSet nodes = nodes(e.topology(), e.jvm());
        if (m == Memory.BIND && nodes.equals(nodes(e.topology(), e.topology().root().cpuset()))) return;
        if (set(e, m, nodes, "the JVM's piece")) jvm = new Policy(m, nodes);
    }

    /** The JVM piece's policy as a verbose or report word ({@code "interleave nodes 0-3"}); null where the kernel's default holds. */
    String jvmDescription() {
        Policy j = jvm;
        return j == null ? null : j.toString();
    }

    /** Sets {@code m} over {@code nodes} on the calling thread; false, with one line, where that cannot be done. */
    private boolean set(Env e, Memory m, CpuSet nodes, String whose) {
        String word = "memory=" + m.name().toLowerCase(Locale.ROOT);
        if (nodes.isEmpty()) {
            Log.once("memory:nodes", word + ": the topology names no NUMA node with CPUs of " + whose + ": new pages go where first touched");
            return false;
        }
        int rc = e.binder().bindMemory(m, nodes.toBitSet());
        if (rc == 0) {
            set = true;
            return true;
        }
        if (rc < 0) {
            Log.once("memory:binder", word + " needs the agent's JNI library, not in use here (binder " + e.binder().describe() + "): new pages go where first touched");
        } else {
            Log.once("memory:" + rc, word + " on nodes " + nodes + " (" + whose + "): the kernel refused (errno " + rc + why(rc) + "): new pages go where first touched");
        }
        return false;
    }

    /** The calling thread, which may have inherited a worker's policy, gets the JVM piece's policy back (the kernel's default where it has none). */
    void reset(Env e) {
        if (!set || !e.binder().binds()) return;
        Policy j = jvm;
        if (j == null) e.binder().bindMemory(Memory.LOCAL, new BitSet());
        else e.binder().bindMemory(j.memory(), j.nodes().toBitSet());
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
