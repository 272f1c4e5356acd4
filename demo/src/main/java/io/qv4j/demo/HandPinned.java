package io.qv4j.demo;

import net.openhft.affinity.Affinity;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The hand-written alternative to the agent, what an application would write with OpenHFT's
 * {@code net.openhft:affinity}: its thread factories pin worker {@code i} to one CPU with
 * {@link Affinity#setAffinity(BitSet)}, on the worker itself before its first task. CPUs are the
 * JVM's allowed ones, one per core first (then the second hardware threads), the same
 * "spread over cores" the demo asks of the agent.
 */
public final class HandPinned {

    private static final List<Integer> CPUS = spreadOverCores(Threads.cpulist(Threads.JVM_ALLOWED));
    private static final AtomicInteger COMMON = new AtomicInteger();

    private HandPinned() {
    }

    /** OpenHFT's implementation class: {@code NullAffinity} means it pins nothing. */
    public static String impl() {
        return Affinity.getAffinityImpl().getClass().getSimpleName();
    }

    /** Pins the calling thread to {@code cpu}. */
    public static void pin(int cpu) {
        BitSet set = new BitSet();
        set.set(cpu);
        Affinity.setAffinity(set);
    }

    /** CPU of slot {@code i}: round robin over the spread list. */
    public static int cpuFor(int i) {
        return CPUS.get(i % CPUS.size());
    }

    /** Threads {@code prefix-i}, each pinned to {@link #cpuFor(int) cpuFor(i)} as it starts. */
    public static ThreadFactory factory(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            int i = n.getAndIncrement();
            Thread t = new Thread(() -> {
                pin(cpuFor(i));
                r.run();
            }, prefix + "-" + i);
            t.setDaemon(true);
            return t;
        };
    }

    /** A fork/join factory whose workers pin themselves in {@code onStart}. */
    public static ForkJoinPool.ForkJoinWorkerThreadFactory forkJoinFactory(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return pool -> new Worker(pool, prefix, n.getAndIncrement());
    }

    /**
     * For the common pool, named by the system property
     * {@code java.util.concurrent.ForkJoinPool.common.threadFactory} before the pool is first used.
     */
    public static final class CommonPoolFactory implements ForkJoinPool.ForkJoinWorkerThreadFactory {
        @Override
        public ForkJoinWorkerThread newThread(ForkJoinPool pool) {
            return new Worker(pool, "common-pinned", COMMON.getAndIncrement());
        }
    }

    private static final class Worker extends ForkJoinWorkerThread {
        private final int slot;

        Worker(ForkJoinPool pool, String prefix, int slot) {
            super(pool);
            this.slot = slot;
            setName(prefix + "-" + slot);
        }

        @Override
        protected void onStart() {
            super.onStart();
            pin(cpuFor(slot));
        }
    }

    /** First PU of every core, then the second of every core, ... (cores by sysfs package/core id). */
    static List<Integer> spreadOverCores(List<Integer> cpus) {
        List<Integer> out = new ArrayList<>();
        List<Integer> rest = new ArrayList<>(cpus);
        while (!rest.isEmpty()) {
            Set<String> coresTaken = new HashSet<>();
            List<Integer> next = new ArrayList<>();
            for (int cpu : rest) {
                if (coresTaken.add(core(cpu))) out.add(cpu);
                else next.add(cpu);
            }
            rest = next;
        }
        return out;
    }

    private static String core(int cpu) {
        Path t = Path.of("/sys/devices/system/cpu/cpu" + cpu + "/topology");
        try {
            return Files.readString(t.resolve("physical_package_id")).strip() + "/" + Files.readString(t.resolve("core_id")).strip();
        } catch (java.io.IOException e) {
            return "cpu" + cpu;
        }
    }
}
