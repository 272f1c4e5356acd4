package io.qv4j.api;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.fail;

/** Runs every rank of a task group on its own thread, as the members of a real group would. */
final class Members {

    /** What one rank's body returned or threw, and when it finished (ms after the start). */
    record Outcome(int rank, Object value, Throwable error, long millis) {
        <T> T value(Class<T> type) {
            if (error != null) throw new AssertionError("rank " + rank + " failed", error);
            return type.cast(value);
        }
    }

    private Members() {
    }

    /** Runs {@code body} for ranks {@code 0..size-1}; fails the test if a thread is still running after 10 s. */
    static List<Outcome> run(TaskGroup group, Function<TaskGroup.Member, Object> body) throws InterruptedException {
        Outcome[] outcomes = new Outcome[group.size()];
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        for (int r = 0; r < group.size(); r++) {
            int rank = r;
            threads.add(new Thread(() -> {
                Object value = null;
                Throwable error = null;
                try {
                    value = body.apply(group.member(rank));
                } catch (Throwable t) {
                    error = t;
                }
                outcomes[rank] = new Outcome(rank, value, error, (System.nanoTime() - start) / 1_000_000);
            }, "member-" + rank));
        }
        for (Thread t : threads) {
            t.setDaemon(true); // a hung member must not keep the test JVM alive
            t.start();
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        for (Thread t : threads) {
            t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            if (t.isAlive()) fail(t.getName() + " still waits after 10 s: the group hangs");
        }
        return List.of(outcomes);
    }
}
