package io.qv4j.testapps;

import io.qv4j.api.Bind;
import io.qv4j.api.Kind;
import io.qv4j.api.Memory;
import io.qv4j.topology.HwType;
import io.qv4j.api.Placement;
import io.qv4j.api.PlacementSpec;
import io.qv4j.api.QvExecutors;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The annotations' test application: pools made under {@code @Placement} (method, class, fields), {@code @Bind}
 * calls, {@code QvExecutors}. Prints {@code thread NAME tid=TID cpus=LIST} per worker (kernel view)
 * and {@code call KEY tid=TID cpus=LIST} for the {@code @Bind} callers.
 */
public final class AnnotatedApp {

    static final Map<String, String> SEEN = new ConcurrentHashMap<>();

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "ann" -> {
                inMethod();                       // m-1: method annotation
                new ClassLevel().make();          // c-1: class annotation
                new ClassLevel().inner();         // i-1: innermost (method inside annotated class)
                new ClassLevel().nested();        // n-1: annotated method calling an annotated method of another class
                Holder h = new Holder();          // f-1: instance field (a wrapper from newSingleThreadExecutor)
                use(h.exec);
                Holder.makeStatic();              // s-1: static field
                use(Holder.STATIC);
                try {
                    throwing();
                } catch (IllegalStateException expected) {
                    // its @Placement must be gone now
                }
                use(Executors.newFixedThreadPool(1, named("u")));  // u-1: no annotation
            }
            case "rules" -> {
                use(Executors.newFixedThreadPool(1, named("ruled")));   // ruled-1: rules first and second match, first wins
                ruledButAnnotated();                                    // ann-1: annotation beats the rules
                use(Executors.newFixedThreadPool(1, named("plain")));   // plain-1: global options
            }
            case "weights" -> {
                ExecutorService big = Executors.newFixedThreadPool(3, named("big"));
                ExecutorService small = Executors.newFixedThreadPool(1, named("small"));
                run(big, 3);
                run(small, 1);
                big.shutdown();
                small.shutdown();
            }
            case "bind" -> {
                CyclicBarrier inside = new CyclicBarrier(2);
                Thread a = new Thread(() -> callBound("a", inside), "caller-a");
                Thread b = new Thread(() -> callBound("b", inside), "caller-b");
                a.start();
                b.start();
                a.join();
                b.join();
            }
            case "kinds" -> {
                // one after the other, each shut down before the next: none plans around another's claim
                runAndEnd(Executors.newFixedThreadPool(4, named("p")), 4);       // the options
                runAndEnd(Executors.newFixedThreadPool(14, named("big")), 14);   // the options, more than the P-cores
                efficiencyPool();                                               // e: @Placement(kind = EFFICIENCY)
                runAndEnd(Executors.newFixedThreadPool(2, named("bg")), 2);      // a rule's kind
            }
            case "exec" -> {
                System.out.println("platform " + QvExecutors.platformAvailable());
                ExecutorService pool = QvExecutors.newFixedThreadPool(2, PlacementSpec.splitAt(HwType.PU), "qx");
                run(pool, 2);
                pool.shutdown();
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
        new TreeMap<>(SEEN).forEach((k, v) -> System.out.println(v));
    }

    @Placement(splitAt = HwType.PU, ordinal = 1, memory = Memory.BIND)
    static void inMethod() throws Exception {
        use(Executors.newFixedThreadPool(1, named("m")));
    }

    @Placement(kind = Kind.EFFICIENCY)
    static void efficiencyPool() throws Exception {
        runAndEnd(Executors.newFixedThreadPool(4, named("e")), 4);
    }

    static void runAndEnd(ExecutorService pool, int n) throws Exception {
        run(pool, n);
        pool.shutdown();
        pool.awaitTermination(5, TimeUnit.SECONDS);
    }

    @Placement(splitAt = HwType.PU, ordinal = 1)
    static void throwing() {
        throw new IllegalStateException("expected");
    }

    @Placement(splitAt = HwType.PU, ordinal = 1)
    static void ruledButAnnotated() throws Exception {
        use(Executors.newFixedThreadPool(1, named("ann")));
    }

    @Placement(splitAt = HwType.PU, ordinal = 0)
    static final class ClassLevel {
        void make() throws Exception {
            use(Executors.newFixedThreadPool(1, named("c")));
        }

        @Placement(splitAt = HwType.PU, ordinal = 1)
        void inner() throws Exception {
            use(Executors.newFixedThreadPool(1, named("i")));
        }

        void nested() throws Exception {
            Other.make();
        }
    }

    static final class Other {
        @Placement(splitAt = HwType.PU, ordinal = 1)
        static void make() throws Exception {
            use(Executors.newFixedThreadPool(1, named("n")));
        }
    }

    static final class Holder {
        @Placement(splitAt = HwType.PU, ordinal = 1)
        final ExecutorService exec;

        @Placement(splitAt = HwType.PU, ordinal = 0)
        static ExecutorService STATIC;

        Holder() {
            exec = Executors.newSingleThreadExecutor(named("f"));
        }

        static void makeStatic() {
            STATIC = Executors.newFixedThreadPool(1, named("s"));
        }
    }

    static void callBound(String key, CyclicBarrier inside) {
        try {
            bound(key, inside);
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
        SEEN.put("after-" + key, "call after-" + key + " tid=" + PoolApp.tid() + " cpus=" + PoolApp.cpus("/proc/thread-self/status"));
    }

    @Bind(splitAt = HwType.PU)
    static void bound(String key, CyclicBarrier inside) throws Exception {
        SEEN.put("during-" + key, "call during-" + key + " tid=" + PoolApp.tid() + " cpus=" + PoolApp.cpus("/proc/thread-self/status"));
        inside.await(10, TimeUnit.SECONDS); // both callers hold their piece at once
    }

    static void use(ExecutorService pool) throws Exception {
        pool.submit(AnnotatedApp::record).get();
        pool.shutdown();
        pool.awaitTermination(5, TimeUnit.SECONDS);
    }

    static void run(ExecutorService pool, int n) throws Exception {
        CyclicBarrier all = new CyclicBarrier(n);
        var fs = new java.util.ArrayList<java.util.concurrent.Future<?>>();
        for (int i = 0; i < n; i++) {
            fs.add(pool.submit(() -> {
                record();
                all.await(10, TimeUnit.SECONDS);
                return null;
            }));
        }
        for (var f : fs) f.get();
    }

    static void record() {
        Thread t = Thread.currentThread();
        SEEN.computeIfAbsent(t.getName(), k -> "thread " + k + " tid=" + PoolApp.tid() + " cpus=" + PoolApp.cpus("/proc/thread-self/status"));
    }

    static ThreadFactory named(String prefix) {
        int[] k = {0};
        return r -> new Thread(r, prefix + "-" + (++k[0]));
    }
}
