package io.qv4j.demo.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * What the agent's busy-neighbours watcher costs ({@code scripts/bench-watch}): a fixed pool of
 * {@code args[0]} workers that wait (so the watcher has that many pinned workers to look at and
 * nothing else runs), held for {@code args[1]} seconds; then prints the {@code qv-neighbours}
 * thread's CPU time and its share of one CPU, or that there is no such thread.
 */
public final class WatchCost {

    public static void main(String[] args) throws Exception {
        int workers = Integer.parseInt(args.length > 0 ? args[0] : "100");
        long seconds = Long.parseLong(args.length > 1 ? args[1] : "20");
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        CountDownLatch started = new CountDownLatch(workers);
        CountDownLatch end = new CountDownLatch(1);
        for (int i = 0; i < workers; i++) {
            pool.submit(() -> {
                started.countDown();
                end.await();
                return null;
            });
        }
        started.await();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Thread watcher = null;
        for (Thread t : Thread.getAllStackTraces().keySet()) if (t.getName().equals("qv-neighbours")) watcher = t;
        @SuppressWarnings("deprecation")
        long id = watcher == null ? -1 : watcher.getId();
        long cpu0 = id < 0 ? 0 : mx.getThreadCpuTime(id);
        long t0 = System.nanoTime();
        Thread.sleep(seconds * 1000);
        long cpu = id < 0 ? 0 : mx.getThreadCpuTime(id) - cpu0;
        long wall = System.nanoTime() - t0;
        end.countDown();
        pool.shutdown();
        if (watcher == null) {
            System.out.println("workers=" + workers + " no qv-neighbours thread");
        } else {
            System.out.println(String.format(Locale.ROOT, "workers=%d watcher cpu=%.1f ms over %.1f s = %.3f %% of one CPU",
                    workers, cpu / 1e6, wall / 1e9, 100.0 * cpu / wall));
        }
    }
}
