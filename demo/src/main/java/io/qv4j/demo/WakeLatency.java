package io.qv4j.demo;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;

/**
 * A latency-critical thread beside CPU-bound ones, the case isolation is for: a pool of one,
 * {@code critical-loop}, sleeps {@code --sleep-us} (100 µs) and measures how late it wakes (a
 * stand-in for an event loop), while a pool of {@code --batch} CPU-bound {@code batch-worker}s
 * (default: one per available processor) spins; with {@code --churn} a plain thread allocates
 * 1 KiB arrays and keeps the last {@code --live} MiB of them (default 16) alive, keeping the
 * collector busy.
 * Reports the wake-up delay's p50, p99, p99.9 and max (µs; lower is better) and the batch's work.
 *
 * <pre>
 * java -cp demo/target/qv-workloads.jar io.qv4j.demo.WakeLatency [--seconds 6] [--batch N] [--churn] [--live 16] [--sleep-us 100] [--out FILE]
 * </pre>
 */
public final class WakeLatency {

    /** At most this many wake-ups are kept (6 s at 100 µs gives fewer than 60,000). */
    static final int MAX_SAMPLES = 1 << 20;

    private WakeLatency() {
    }

    public static void main(String[] args) throws Exception {
        double seconds = Double.parseDouble(Threads.opt(args, "--seconds", "6"));
        int batch = Integer.parseInt(Threads.opt(args, "--batch", Integer.toString(Runtime.getRuntime().availableProcessors())));
        long sleepNanos = Long.parseLong(Threads.opt(args, "--sleep-us", "100")) * 1000;
        boolean churn = Threads.flag(args, "--churn");
        int liveMiB = Integer.parseInt(Threads.opt(args, "--live", "16"));
        Threads.Result result = new Threads.Result("wake-latency", args);

        ExecutorService critical = Executors.newSingleThreadExecutor(Threads.named("critical-loop"));
        ExecutorService batchPool = Executors.newFixedThreadPool(batch, Threads.named("batch-worker"));
        long end = System.nanoTime() + (long) (seconds * 1e9);
        Future<long[]> late = critical.submit(() -> wakeLoop(sleepNanos, end));
        List<Future<Long>> work = new java.util.ArrayList<>();
        for (int i = 0; i < batch; i++) work.add(batchPool.submit(() -> spin(end)));
        Thread allocator = null;
        if (churn) {
            allocator = new Thread(() -> allocate(end, liveMiB), "allocator");
            allocator.setDaemon(true);
            allocator.start();
        }
        long[] delays = late.get();
        long steps = 0;
        for (Future<Long> f : work) steps += f.get();
        if (allocator != null) allocator.join();
        var rows = Threads.rows();
        critical.shutdown();
        batchPool.shutdown();

        int n = (int) delays[0];
        long[] sorted = Arrays.copyOfRange(delays, 1, 1 + n);
        Arrays.sort(sorted);
        result.metric("p50", Threads.percentile(sorted, n, 50) / 1000.0, "us", "lower")
                .metric("p99", Threads.percentile(sorted, n, 99) / 1000.0, "us", "lower")
                .metric("p99.9", Threads.percentile(sorted, n, 99.9) / 1000.0, "us", "lower")
                .metric("max", n == 0 ? 0 : sorted[n - 1] / 1000.0, "us", "lower")
                .metric("batch", steps / seconds / 1e6, "Msteps/s", "higher")
                .note(n + " wake-ups, batch pool " + batch + (churn ? ", allocation churn (" + liveMiB + " MiB live)" : ""));
        result.print(rows, System.out);
    }

    /** The count of wake-ups, then each one's delay past the requested sleep, in ns. */
    static long[] wakeLoop(long sleepNanos, long end) {
        Threads.seen();
        long[] out = new long[MAX_SAMPLES + 1];
        int n = 0;
        while (System.nanoTime() < end && n < MAX_SAMPLES) {
            long t0 = System.nanoTime();
            LockSupport.parkNanos(sleepNanos);
            out[++n] = Math.max(0, System.nanoTime() - t0 - sleepNanos);
        }
        out[0] = n;
        return out;
    }

    /** Steps of a cheap arithmetic loop until {@code end}. */
    static long spin(long end) {
        Threads.seen();
        long steps = 0;
        long x = 1;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 10_000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
            steps += 10_000;
        }
        return steps + (x == 42 ? 1 : 0);
    }

    /** Allocates 1 KiB arrays, keeping the last {@code liveMiB} Ki of them alive, until {@code end}. */
    static void allocate(long end, int liveMiB) {
        byte[][] window = new byte[Integer.highestOneBit(Math.max(1, liveMiB)) << 10][];
        int i = 0;
        while (System.nanoTime() < end) {
            window[i++ & (window.length - 1)] = new byte[1024];
        }
    }
}
