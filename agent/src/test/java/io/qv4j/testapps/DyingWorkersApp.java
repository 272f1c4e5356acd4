package io.qv4j.testapps;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;

/**
 * A fork/join pool of two workers ({@code fj-1}, {@code fj-2}) whose {@code onTermination} throws,
 * so each leaves {@code run()} by an exception when the pool shuts down. Both run a task at once
 * (so both start and are placed), then the pool is shut down and awaited; then the application
 * prints {@code ready PID} and runs until its stdin closes or 90 s pass.
 */
public final class DyingWorkersApp {

    public static void main(String[] args) throws Exception {
        int[] n = {0};
        ForkJoinPool pool = new ForkJoinPool(2, p -> new ForkJoinWorkerThread(p) {
            {
                setName("fj-" + ++n[0]);
            }

            @Override
            protected void onTermination(Throwable exception) {
                throw new IllegalStateException("onTermination of " + getName());
            }
        }, (t, e) -> { }, false);
        CountDownLatch both = new CountDownLatch(2);
        for (int i = 0; i < 2; i++) {
            pool.execute(() -> {
                both.countDown();
                try {
                    both.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        both.await();
        pool.shutdown();
        if (!pool.awaitTermination(20, TimeUnit.SECONDS)) throw new IllegalStateException("the pool did not end");
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            while (t.getName().startsWith("fj-") && t.isAlive()) t.join(100);
        }
        BusyApp.readyUntilStdinCloses(90);
    }
}
