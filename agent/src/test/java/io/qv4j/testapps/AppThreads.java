package io.qv4j.testapps;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;

/**
 * Threads and tasks of "application" classes for in-process thread-group tests: outside the
 * agent's packages, whose own threads and tasks the agent never takes.
 */
public final class AppThreads {

    private AppThreads() {
    }

    /** A subclass of Thread, for rules that match the thread's class. */
    public static final class Named extends Thread {
        public Named(String name) {
            super(name);
        }
    }

    /** The application's own fork-join worker class, as a custom pool factory makes. */
    public static final class Worker extends ForkJoinWorkerThread {
        public Worker(ForkJoinPool pool) {
            super(pool);
        }
    }

    /** A task that does nothing. */
    public static final class Task implements Runnable {
        @Override
        public void run() {
        }
    }

    /** A task that waits for {@code end}. */
    public record Waiting(java.util.concurrent.CountDownLatch end) implements Runnable {
        @Override
        public void run() {
            try {
                end.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** An unstarted plain thread running {@code r}. */
    public static Thread plain(Runnable r, String name) {
        return new Thread(r, name);
    }
}
