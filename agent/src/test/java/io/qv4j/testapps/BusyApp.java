package io.qv4j.testapps;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A long-running application for the status, attach and MXBean tests: a fixed pool of N workers
 * named {@code app-1..N}, each busy with short tasks (1 ms of work, 2 ms asleep) that resubmit themselves (so a worker takes a
 * new task every few milliseconds). Prints {@code ready PID} and runs until its stdin closes or
 * {@code seconds} pass.
 */
public final class BusyApp {

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        AtomicInteger k = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(n, r -> new Thread(r, "app-" + k.incrementAndGet()));
        for (int i = 0; i < n; i++) pool.execute(new Spin(pool));
        while (k.get() < n) Thread.sleep(5);
        readyUntilStdinCloses(seconds);
    }

    /** Prints {@code ready PID}, then runs until stdin closes (the test is done) or {@code seconds} pass, and exits. */
    static void readyUntilStdinCloses(int seconds) throws InterruptedException {
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        Thread watch = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // until the test closes stdin
                }
            } catch (Exception ignored) {
                // closed
            }
            System.exit(0);
        }, "stdin-watch");
        watch.setDaemon(true);
        watch.start();
        Thread.sleep(seconds * 1000L);
        System.exit(0);
    }

    record Spin(ExecutorService pool) implements Runnable {
        @Override
        public void run() {
            long end = System.nanoTime() + 1_000_000;
            double x = 1;
            while (System.nanoTime() < end) x = Math.sqrt(x + 1);
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                return;
            }
            if (x > 0 && !pool.isShutdown()) pool.execute(this);
        }
    }
}
