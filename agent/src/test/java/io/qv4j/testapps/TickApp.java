package io.qv4j.testapps;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fixed pool of {@code args[0]} workers named {@code tick-N} that take short tasks (20 ms sleeps,
 * one per worker at a time) for {@code args[1]} ms, so that each worker starts a new task several
 * times a second: where the agent moves a pool's workers they bind again at once, and a test
 * watches their masks from outside ({@code /proc/PID/task/TID/status}) while it changes the
 * machine under the JVM. Prints {@code jvm pid=PID} first, {@code ticking} once every worker has
 * run a task, {@code ticked} at the end.
 */
public final class TickApp {

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        long end = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000L;
        System.out.println("jvm pid=" + ProcessHandle.current().pid());
        AtomicInteger named = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(n, r -> new Thread(r, "tick-" + named.incrementAndGet()));
        Set<String> ran = ConcurrentHashMap.newKeySet();
        boolean said = false;
        while (System.nanoTime() < end) {
            List<Future<?>> round = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                round.add(pool.submit(() -> {
                    ran.add(Thread.currentThread().getName());
                    Thread.sleep(20);
                    return null;
                }));
            }
            for (Future<?> f : round) f.get();
            if (!said && ran.size() == n) {
                System.out.println("ticking");
                said = true;
            }
        }
        pool.shutdown();
        System.out.println("ticked");
    }
}
