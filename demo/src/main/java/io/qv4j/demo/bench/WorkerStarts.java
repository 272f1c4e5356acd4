package io.qv4j.demo.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Starts many small fixed pools one after another, so that the agent's report holds the cost of
 * many worker starts ({@code startMicros}: bookkeeping + bind on the worker's own thread).
 * {@code scripts/bench-worker-start} runs it under the agent and summarises the report.
 * Usage: {@code WorkerStarts [POOLS] [WORKERS]} (default 200 pools of 2).
 */
public final class WorkerStarts {

    private WorkerStarts() {
    }

    public static void main(String[] args) throws InterruptedException {
        int pools = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int workers = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        for (int i = 0; i < pools; i++) {
            ThreadPoolExecutor pool = new ThreadPoolExecutor(workers, workers, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>());
            CountDownLatch started = new CountDownLatch(workers);
            for (int w = 0; w < workers; w++) pool.execute(started::countDown);
            started.await();
            pool.shutdown();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
        System.out.println(pools + " pools of " + workers + " workers started");
    }
}
