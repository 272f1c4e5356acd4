package io.qv4j.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A fixed thread pool doing CPU work, then the kernel's view of its workers (see {@link Threads}).
 * Usage: {@code PoolDemo [WORKERS] [MILLIS]}.
 */
public final class PoolDemo {

    private PoolDemo() {
    }

    public static void main(String[] args) throws Exception {
        int workers = args.length > 0 ? Integer.parseInt(args[0]) : Runtime.getRuntime().availableProcessors();
        long millis = args.length > 1 ? Long.parseLong(args[1]) : 500;
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        List<Future<Double>> work = new ArrayList<>();
        for (int i = 0; i < workers; i++) work.add(pool.submit(() -> spin(millis)));
        double sum = 0;
        for (Future<Double> f : work) sum += f.get();
        var rows = Threads.rows();
        pool.shutdown();
        System.out.printf("%d workers x %d ms of CPU work%s%n", workers, millis, sum < 0 ? "!" : "");
        Threads.table(rows, System.out);
    }

    private static double spin(long millis) {
        Threads.seen();
        long end = System.nanoTime() + millis * 1_000_000;
        double x = 0;
        while (System.nanoTime() < end) x += Math.sqrt(x + 1);
        return x;
    }
}
