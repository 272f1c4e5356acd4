package io.qv4j.testapps;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The latency issue's application: a plain thread {@code plain} started first, a pool of
 * {@code args[0]} CPU-bound {@code batch-worker}s (default: one per available processor), and a
 * single-thread pool {@code critical-loop} that sleeps 100 µs in a loop and, 200 ms in, starts a
 * plain thread {@code critical-child}; its worker is placed before the batch workers start. {@code args[1]} ms after the pools start (default 1000) it
 * prints {@code task TID NAME cpus=LIST} for every thread of the process, as the kernel has it
 * ({@code /proc/self/task/TID}), and exits.
 */
public final class ExclusiveApp {

    public static void main(String[] args) throws Exception {
        int batch = args.length > 0 ? Integer.parseInt(args[0]) : Runtime.getRuntime().availableProcessors();
        long millis = args.length > 1 ? Long.parseLong(args[1]) : 1000;
        CountDownLatch end = new CountDownLatch(1);
        Thread plain = new Thread(() -> await(end), "plain");
        plain.setDaemon(true);
        plain.start();
        ExecutorService critical = Executors.newSingleThreadExecutor(r -> new Thread(r, "critical-loop-0"));
        ExecutorService work = Executors.newFixedThreadPool(batch, new java.util.concurrent.ThreadFactory() {
            private int n;

            @Override
            public synchronized Thread newThread(Runnable r) {
                return new Thread(r, "batch-worker-" + n++);
            }
        });
        CountDownLatch criticalPlaced = new CountDownLatch(1);
        critical.submit(() -> {
            criticalPlaced.countDown();
            long t0 = System.nanoTime();
            boolean child = false;
            while (end.getCount() > 0) {
                LockSupport.parkNanos(100_000);
                if (!child && System.nanoTime() - t0 > 200_000_000L) {
                    Thread c = new Thread(() -> await(end), "critical-child");
                    c.setDaemon(true);
                    c.start();
                    child = true;
                }
            }
        });
        // the critical worker is placed (its pool planned) before the batch workers start: planned
        // first, a batch worker's claim left two JVMs at once both without a rest, both refused
        criticalPlaced.await(10, TimeUnit.SECONDS);
        for (int i = 0; i < batch; i++) {
            work.submit(() -> {
                long x = 1;
                while (end.getCount() > 0) for (int k = 0; k < 100_000; k++) x = x * 6364136223846793005L + 1;
                return x;
            });
        }
        Thread.sleep(millis);
        StringBuilder out = new StringBuilder("jvm pid=" + ProcessHandle.current().pid() + "\n");
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    String name = Files.readString(t.resolve("comm")).strip();
                    for (String line : Files.readAllLines(t.resolve("status"))) {
                        if (line.startsWith("Cpus_allowed_list:")) {
                            out.append("task ").append(t.getFileName()).append(' ').append(name.replace(' ', '_'))
                                    .append(" cpus=").append(line.substring(18).strip()).append('\n');
                        }
                    }
                } catch (java.io.IOException gone) {
                    // the thread ended meanwhile
                }
            }
        }
        System.out.print(out);
        end.countDown();
        critical.shutdown();
        work.shutdown();
        critical.awaitTermination(5, TimeUnit.SECONDS);
        work.awaitTermination(5, TimeUnit.SECONDS);
    }

    private static void await(CountDownLatch end) {
        try {
            end.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
