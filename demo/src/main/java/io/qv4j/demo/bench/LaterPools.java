package io.qv4j.demo.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Pools made now and then in a running JVM, as a service makes one per request batch or per
 * job: a single-thread pool, one task, shut down, then a pause. Prints how long each pool's first
 * task waited after its submit, over the pools after the first tenth (warm-up):
 * {@code first-task us p50=A p90=B max=C}. {@code scripts/bench-later-pools} runs it with and
 * without the agent. Usage: {@code LaterPools [POOLS] [GAP_MS] [THREADS]} (default 40 pools,
 * 100 ms apart, beside 0 more threads: THREADS sleeping threads stand for a service's others).
 */
public final class LaterPools {

    private LaterPools() {
    }

    public static void main(String[] args) throws Exception {
        int pools = 40;
        long gap = 100;
        if (args.length > 0) pools = Integer.parseInt(args[0]);
        if (args.length > 1) gap = Long.parseLong(args[1]);
        int others = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        for (int i = 0; i < others; i++) {
            Thread t = new Thread(LaterPools::sleep, "other-" + i);
            t.setDaemon(true);
            t.start();
        }
        long[] waited = new long[pools - pools / 10]; // the first tenth warms up
        int first = pools - waited.length;
        for (int i = 0; i < pools; i++) {
            ExecutorService pool = Executors.newSingleThreadExecutor();
            long submitted = System.nanoTime();
            Future<Long> began = pool.submit(System::nanoTime);
            long micros = (began.get() - submitted) / 1000;
            if (i >= first) waited[i - first] = micros;
            pool.shutdown();
            Thread.sleep(gap);
        }
        Arrays.sort(waited);
        int n = waited.length;
        System.out.printf(Locale.ROOT, "first-task us p50=%d p90=%d max=%d%n", waited[n / 2], waited[Math.min(n - 1, n * 9 / 10)], waited[n - 1]);
    }

    private static void sleep() {
        try {
            Thread.sleep(Long.MAX_VALUE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
