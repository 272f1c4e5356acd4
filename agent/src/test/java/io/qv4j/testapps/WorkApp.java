package io.qv4j.testapps;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A fixed pool of {@code args[0]} workers sharing a fixed amount of arithmetic ({@code args[1]}
 * million steps per worker) in small tasks, for the compare tests: unlike {@link SpinApp}, two
 * workers squeezed onto one PU take twice as long, and a worker held up leaves its share to the
 * rest, as in a real pool. The steps mix shifts into the multiply, so that no JIT folds the loop
 * away. As a benchmark does, it measures a steady state: the arithmetic is
 * compiled first, the agent's start-up is over (300 ms) and the pool's workers have started (and
 * been placed) before the timed work begins. Prints
 * {@code work millis=M}, {@code rate=R} (million steps per second, all workers) and
 * {@code cpu LABEL ms=C}, this JVM's own CPU time, with {@code args[2]} as the label (default
 * {@code app}). With {@code args[3]} = {@code now} it times a job as a user would instead: the
 * clock starts before the pool is made, with no warm-up and no wait, so the placement of its
 * first moments (and any collision with a JVM started beside it) is part of the time.
 */
public final class WorkApp {

    private static final int TASKS_PER_WORKER = 50;

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        long steps = Long.parseLong(args[1]) * 1_000_000L;
        String label = args.length > 2 ? args[2] : "app";
        boolean now = args.length > 3 && args[3].equals("now");
        long t0 = System.nanoTime();
        long warm = 0;
        if (!now) {
            for (int i = 0; i < 20_000; i++) warm += work(2_000);
            Thread.sleep(300);
        }
        ExecutorService pool = Executors.newFixedThreadPool(n);
        if (!now) {
            // the workers started (and placed: the pool's plan, ~10 ms for a first pool) before the clock starts
            List<Future<Long>> started = new ArrayList<>();
            for (int i = 0; i < n; i++) started.add(pool.submit(() -> work(1_000)));
            for (Future<Long> f : started) warm += f.get();
            t0 = System.nanoTime();
        }
        List<Future<Long>> done = new ArrayList<>();
        for (int i = 0; i < TASKS_PER_WORKER * n; i++) done.add(pool.submit(() -> work(steps / TASKS_PER_WORKER)));
        long sum = warm;
        for (Future<Long> f : done) sum += f.get();
        long millis = Math.max(1, (System.nanoTime() - t0) / 1_000_000);
        pool.shutdown();
        System.out.println("work millis=" + millis + (sum == 42 ? "!" : ""));
        System.out.println("rate=" + (n * steps / 1000.0 / millis));
        long cpu = ProcessHandle.current().info().totalCpuDuration().map(d -> d.toMillis()).orElse(-1L);
        System.out.println("cpu " + label + " ms=" + cpu);
    }

    private static long work(long steps) {
        long x = 1;
        for (long k = 0; k < steps; k++) x = (x ^ (x >>> 29)) * 6364136223846793005L + k;
        return x;
    }
}
