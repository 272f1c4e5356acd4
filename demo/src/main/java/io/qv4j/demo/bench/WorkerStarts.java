package io.qv4j.demo.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Starts many small fixed pools one after another, so that the agent's report holds the cost of
 * many worker starts ({@code startMicros}: bookkeeping + bind on the worker's own thread).
 * {@code scripts/bench-worker-start} runs it under the agent and summarises the report;
 * {@code scripts/bench-churn} times it with and without the agent: it prints
 * {@code churn us-per-pool=U}, the wall time of a pool's whole life (made, its workers started,
 * shut down, ended) over the pools after the first tenth (warm-up).
 * Usage: {@code WorkerStarts [POOLS] [WORKERS]} (default 200 pools of 2).
 */
public final class WorkerStarts {

    private WorkerStarts() {
    }

    public static void main(String[] args) throws InterruptedException {
        int pools = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int workers = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int warm = pools / 10;
        long t0 = System.nanoTime();
        for (int i = 0; i < pools; i++) {
            if (i == warm) t0 = System.nanoTime();
            ThreadPoolExecutor pool = new ThreadPoolExecutor(workers, workers, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>());
            CountDownLatch started = new CountDownLatch(workers);
            for (int w = 0; w < workers; w++) pool.execute(started::countDown);
            started.await();
            pool.shutdown();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
        long micros = (System.nanoTime() - t0) / 1000;
        System.out.println(pools + " pools of " + workers + " workers started");
        System.out.printf(java.util.Locale.ROOT, "churn us-per-pool=%.1f%n", micros / (double) Math.max(1, pools - warm));
    }
}
