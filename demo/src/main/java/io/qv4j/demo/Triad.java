package io.qv4j.demo;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * STREAM triad {@code a[i] = b[i] + s * c[i]} over a fixed pool: worker {@code w} owns slice
 * {@code w} of the arrays (it also first-touches it); a barrier separates passes. Bandwidth counts
 * 24 bytes per element (STREAM's rule); best and median of the passes.
 *
 * <pre>
 * java -cp demo/target/qv-workloads.jar io.qv4j.demo.Triad [--threads N] [--passes 20] [--elements E] [--openhft] [--out FILE]
 * </pre>
 * Arrays default to 4x the largest cache sysfs reports, between 4M and 32M elements each.
 */
public final class Triad {

    private Triad() {
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(Threads.opt(args, "--threads", Integer.toString(Runtime.getRuntime().availableProcessors())));
        int passes = Integer.parseInt(Threads.opt(args, "--passes", "20"));
        boolean openhft = Threads.flag(args, "--openhft");
        long dflt = Math.max(4L << 20, Math.min(32L << 20, 4 * largestCache() / 8));
        dflt = Math.min(dflt, Runtime.getRuntime().maxMemory() / 3 / 8 * 7 / 10);
        int n = Integer.parseInt(Threads.opt(args, "--elements", Long.toString(dflt)));
        Threads.Result result = new Threads.Result("triad", args);

        double[] a = new double[n];
        double[] b = new double[n];
        double[] c = new double[n];
        long[] stamps = new long[passes + 1];
        int[] pass = {0};
        CyclicBarrier barrier = new CyclicBarrier(threads, () -> stamps[pass[0]++] = System.nanoTime());
        ExecutorService pool = Executors.newFixedThreadPool(threads,
                openhft ? HandPinned.factory("triad") : Threads.named("triad"));
        List<Future<?>> work = new ArrayList<>();
        for (int w = 0; w < threads; w++) {
            int lo = (int) ((long) n * w / threads);
            int hi = (int) ((long) n * (w + 1) / threads);
            work.add(pool.submit(() -> {
                Threads.seen();
                for (int i = lo; i < hi; i++) {
                    a[i] = 0;
                    b[i] = 1;
                    c[i] = 2;
                }
                barrier.await();
                double s = 3;
                for (int p = 0; p < passes; p++) {
                    for (int i = lo; i < hi; i++) a[i] = b[i] + s * c[i];
                    barrier.await();
                }
                return null;
            }));
        }
        for (Future<?> f : work) f.get();
        var rows = Threads.rows();
        pool.shutdown();
        if (a[n / 2] != 7) throw new AssertionError("triad result " + a[n / 2]);

        double[] gbs = new double[passes];
        double best = 0;
        for (int p = 0; p < passes; p++) {
            gbs[p] = 24.0 * n / (stamps[p + 1] - stamps[p]);
            best = Math.max(best, gbs[p]);
        }
        result.metric("best", best, "GB/s", "higher")
                .metric("median", Threads.median(gbs), "GB/s", "higher")
                .note(threads + " workers, 3 x " + (8L * n >> 20) + " MiB, " + passes + " passes");
        if (openhft) result.note("OpenHFT " + HandPinned.impl());
        result.print(rows, System.out);
    }

    /** Largest cache of CPU 0 in bytes, from sysfs; 32 MiB when unknown. */
    static long largestCache() {
        long max = 0;
        for (int i = 0; i < 8; i++) {
            Path p = Path.of("/sys/devices/system/cpu/cpu0/cache/index" + i + "/size");
            try {
                String s = Files.readString(p).strip();
                long mult = s.endsWith("K") ? 1024 : s.endsWith("M") ? 1 << 20 : 1;
                max = Math.max(max, Long.parseLong(s.replaceAll("[^0-9]", "")) * mult);
            } catch (java.io.IOException | NumberFormatException e) {
                break;
            }
        }
        return max == 0 ? 32L << 20 : max;
    }
}
