package io.qv4j.testapps;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many pools in one JVM, one after the other, each named so that a rule of its own places it: the
 * multi-socket guest boots once and a JVM there costs seconds. The cases file has one line per
 * pool, {@code ID fj|tpe TASKS [HOLD_MS]}, or a pause, {@code pause MS}: a {@code ForkJoinPool} or a fixed {@code ThreadPoolExecutor}
 * of TASKS workers named {@code ID-N}. Every worker runs one task that reads its own mask from the
 * kernel and waits until all of the pool's workers have (so each worker starts and none runs two
 * tasks), then HOLD_MS more (so that another JVM or a {@code status} runs beside it); the JVM
 * prints {@code case ID cpus=LIST} per worker as soon as all have read, after a first line
 * {@code jvm pid=PID cpus=LIST} with its main thread's mask (its piece under a launcher). A pool ends, and its threads are joined (their exit
 * hooks have run, so the next pool sees its PUs free), before the next starts.
 */
public final class SplitsApp {

    public static void main(String[] args) throws Exception {
        System.out.println("jvm pid=" + ProcessHandle.current().pid() + " cpus=" + PoolApp.cpus("/proc/thread-self/status"));
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 2 && f[0].equals("pause")) Thread.sleep(Long.parseLong(f[1]));
            else if (f.length >= 3) run(f[0], f[1], Integer.parseInt(f[2]), f.length > 3 ? Long.parseLong(f[3]) : 0);
        }
        System.out.println("splits done");
    }

    private static void run(String id, String kind, int tasks, long holdMillis) throws Exception {
        AtomicInteger n = new AtomicInteger();
        List<Thread> workers = new ArrayList<>();
        ExecutorService pool = kind.equals("fj")
                ? new ForkJoinPool(tasks, p -> {
                    ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(p);
                    t.setName(id + "-" + n.incrementAndGet());
                    return t;
                }, null, false)
                : Executors.newFixedThreadPool(tasks, r -> new Thread(r, id + "-" + n.incrementAndGet()));
        CountDownLatch read = new CountDownLatch(tasks);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < tasks; i++) {
            pool.execute(() -> {
                String cpus = PoolApp.cpus("/proc/thread-self/status");
                synchronized (lines) {
                    lines.add("case " + id + " cpus=" + cpus);
                    workers.add(Thread.currentThread());
                }
                read.countDown();
                try {
                    read.await();
                    Thread.sleep(holdMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        if (!read.await(120, TimeUnit.SECONDS)) System.out.println("case " + id + " timed out: " + read.getCount() + " workers never started");
        synchronized (lines) {
            lines.forEach(System.out::println);
        }
        System.out.flush();
        pool.shutdown();
        pool.awaitTermination(holdMillis + 60_000, TimeUnit.MILLISECONDS);
        synchronized (lines) {
            for (Thread t : workers) t.join(10_000);
        }
    }
}
