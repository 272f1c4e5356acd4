package io.qv4j.demo;

import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Ping-pong latency between the two workers of one fixed pool: a busy-spin hand-off through two
 * volatile slots on separate cache lines; the round-trip time of each exchange, in ns.
 *
 * <pre>
 * java -cp demo/target/qv-workloads.jar io.qv4j.demo.PingPong [--seconds 2] [--openhft] [--out FILE]
 * </pre>
 * {@code --openhft} pins the two workers by hand (OpenHFT {@code Affinity.setAffinity}).
 */
public final class PingPong {

    private static final int PING = 0;
    private static final int PONG = 16; // 128 bytes apart: no false sharing between the two slots
    private static final int MAX_SAMPLES = 4_000_000;

    private PingPong() {
    }

    public static void main(String[] args) throws Exception {
        double seconds = Double.parseDouble(Threads.opt(args, "--seconds", "2"));
        boolean openhft = Threads.flag(args, "--openhft");
        Threads.Result result = new Threads.Result("pingpong", args);
        ExecutorService pool = Executors.newFixedThreadPool(2,
                openhft ? HandPinned.factory("pingpong") : Threads.named("pingpong"));
        AtomicLongArray slots = new AtomicLongArray(32);
        long[] rtt = new long[MAX_SAMPLES];

        Future<?> ponger = pool.submit(() -> {
            Threads.seen();
            for (long i = 1; ; i++) {
                long v;
                while ((v = slots.get(PING)) != i) {
                    if (v < 0) return;
                    Thread.onSpinWait();
                }
                slots.set(PONG, i);
            }
        });
        Future<Integer> pinger = pool.submit(() -> {
            Threads.seen();
            long warmEnd = System.nanoTime() + 500_000_000L;
            long end = warmEnd + (long) (seconds * 1e9);
            int n = 0;
            long i = 0;
            while (true) {
                long t0 = System.nanoTime();
                if (t0 >= end || n == MAX_SAMPLES) break;
                slots.set(PING, ++i);
                while (slots.get(PONG) != i) Thread.onSpinWait();
                long t1 = System.nanoTime();
                if (t0 >= warmEnd) rtt[n++] = t1 - t0;
            }
            slots.set(PING, -1);
            return n;
        });
        int n = pinger.get();
        ponger.get();
        var rows = Threads.rows();
        pool.shutdown();

        Arrays.sort(rtt, 0, n);
        result.metric("p50", Threads.percentile(rtt, n, 50), "ns", "lower")
                .metric("p99", Threads.percentile(rtt, n, 99), "ns", "lower")
                .metric("p99.9", Threads.percentile(rtt, n, 99.9), "ns", "lower")
                .note(n + " round trips");
        if (openhft) result.note("OpenHFT " + HandPinned.impl());
        result.print(rows, System.out);
    }
}
