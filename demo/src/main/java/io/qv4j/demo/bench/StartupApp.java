package io.qv4j.demo.bench;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The smallest application with a pool: one fixed pool of 2, two trivial tasks, shut down.
 * {@code scripts/bench} times whole JVMs of it with and without {@code -javaagent} (start-up cost).
 * No demo helpers here: only JDK classes load.
 */
public final class StartupApp {

    private StartupApp() {
    }

    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        Future<Integer> a = pool.submit(() -> 1);
        Future<Integer> b = pool.submit(() -> 2);
        int sum = a.get() + b.get();
        pool.shutdown();
        if (sum != 3) throw new AssertionError();
    }
}
