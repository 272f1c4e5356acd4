package io.qv4j.api;

import io.qv4j.split.Slots;
import io.qv4j.topology.CpuSet;

import java.util.ArrayList;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Pools whose threads are placed by a {@link PlacementSpec}, in code. Each new thread takes the
 * lowest free slot {@code 0..tasks-1} and binds itself to that slot's piece through
 * {@link Platform#current()} before it runs anything; a thread that ends frees its slot, so a
 * replacement lands where its predecessor was; threads beyond {@code tasks} get the union of the
 * pieces. The plan is made once, when the first thread starts.
 *
 * <p>It works the same with or without the qv4j agent: the platform is the one installed
 * ({@link Platform#install}) or found by {@link java.util.ServiceLoader} — the agent jar provides
 * one, so having {@code qv-agent.jar} on the class path (or as {@code -javaagent}) is enough. The
 * agent leaves pools made here alone. With no platform, threads run unpinned and one message says
 * so (through {@link System.Logger}, logger {@code io.qv4j.api}, level WARNING), once per JVM.
 */
public final class QvExecutors {

    private static final AtomicInteger POOLS = new AtomicInteger();
    private static final AtomicInteger WARNED = new AtomicInteger();

    private QvExecutors() {
    }

    /** True when {@link Platform#current()} has a platform (installed or on the class path). */
    public static boolean platformAvailable() {
        try {
            return Platform.current() != null;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    /** A fixed pool of {@code n} threads named {@code qv-pool-K-thread-I}, placed by {@code spec}. */
    public static ExecutorService newFixedThreadPool(int n, PlacementSpec spec) {
        return newFixedThreadPool(n, spec, "qv-pool-" + POOLS.incrementAndGet());
    }

    /** A fixed pool of {@code n} threads named {@code name-thread-I}, placed by {@code spec}. */
    public static ExecutorService newFixedThreadPool(int n, PlacementSpec spec, String name) {
        return new ThreadPoolExecutor(n, n, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                threadFactory(name, n, spec));
    }

    /** A factory for threads named {@code name-thread-I}, {@code tasks} of them placed one per slot. */
    public static ThreadFactory threadFactory(String name, int tasks, PlacementSpec spec) {
        if (tasks < 1) throw new IllegalArgumentException("tasks must be >= 1: " + tasks);
        return new Factory(name, tasks, spec);
    }

    /** The thread factory; its class name tells the agent to leave its pools alone. */
    static final class Factory implements ThreadFactory {
        private final String name;
        private final int tasks;
        private final PlacementSpec spec;
        private final AtomicInteger count = new AtomicInteger();
        private volatile Slots slots;
        private volatile CpuSet union;
        private volatile boolean unpinned;

        Factory(String name, int tasks, PlacementSpec spec) {
            this.name = name;
            this.tasks = tasks;
            this.spec = spec;
        }

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(() -> {
                int slot = -1;
                try {
                    slot = bind();
                } catch (RuntimeException | LinkageError e) {
                    warn("cannot place thread " + Thread.currentThread().getName() + " (" + e + "): it runs unpinned");
                }
                try {
                    r.run();
                } finally {
                    if (slot >= 0) slots.release(slot, Thread.currentThread());
                }
            }, name + "-thread-" + count.incrementAndGet());
            t.setDaemon(false);
            return t;
        }

        private int bind() {
            if (!plan()) return -1;
            int slot = slots.take(Thread.currentThread());
            Platform.current().bind(slot >= 0 ? slots.piece(slot) : union);
            return slot;
        }

        private boolean plan() {
            if (unpinned) return false;
            if (slots != null) return true;
            synchronized (this) {
                if (slots != null) return true;
                Platform p;
                try {
                    p = Platform.current();
                } catch (IllegalStateException e) {
                    unpinned = true;
                    warn(e.getMessage() + "; QvExecutors threads run unpinned");
                    return false;
                }
                Scope all = Scope.of(p.discover());
                List<CpuSet> pieces = new ArrayList<>(tasks);
                for (Optional<Scope> s : spec.plan(all, tasks)) pieces.add(s.map(Scope::cpuset).orElse(null));
                Slots s = new Slots(pieces);
                union = s.union().isEmpty() ? all.cpuset() : s.union();
                slots = s;
                return true;
            }
        }
    }

    private static void warn(String message) {
        if (WARNED.getAndIncrement() == 0) System.getLogger("io.qv4j.api").log(System.Logger.Level.WARNING, "qv4j: " + message);
    }
}
