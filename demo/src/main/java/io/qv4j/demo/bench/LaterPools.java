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
 * without the agent. Usage: {@code LaterPools [POOLS] [GAP_MS]} (default 40 pools, 100 ms apart).
 */
public final class LaterPools {

    private LaterPools() {
    }

    public static void main(String[] args) throws Exception {
        int pools = 40;
        long gap = 100;
        if (args.length > 0) pools = Integer.parseInt(args[0]);
        if (args.length > 1) gap = Long.parseLong(args[1]);
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
}
