package io.qv4j.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;
import java.util.stream.IntStream;

/**
 * A fork/join compute job (Mandelbrot rows split recursively on {@code new ForkJoinPool(n)}) and
 * the same image as a parallel stream (the common pool, plus the calling thread). Reports the best
 * and median wall time of the repetitions of each.
 *
 * <pre>
 * java -cp demo/target/qv-workloads.jar io.qv4j.demo.ForkJoin [--threads N] [--seconds 2] [--openhft] [--out FILE]
 * </pre>
 * {@code --openhft} pins the workers of both pools by hand (the common pool through
 * {@code java.util.concurrent.ForkJoinPool.common.threadFactory}).
 */
public final class ForkJoin {

    static final int WIDTH = 600;
    static final int HEIGHT = 400;
    static final int MAX_ITER = 400;

    private ForkJoin() {
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(Threads.opt(args, "--threads", Integer.toString(Runtime.getRuntime().availableProcessors())));
        double seconds = Double.parseDouble(Threads.opt(args, "--seconds", "2"));
        boolean openhft = Threads.flag(args, "--openhft");
        if (openhft) {
            System.setProperty("java.util.concurrent.ForkJoinPool.common.threadFactory", HandPinned.CommonPoolFactory.class.getName());
        }
        Threads.Result result = new Threads.Result("forkjoin", args);

        ForkJoinPool pool = openhft
                ? new ForkJoinPool(threads, HandPinned.forkJoinFactory("fj"), null, false)
                : new ForkJoinPool(threads);
        long expected = rows(0, HEIGHT);
        double[] fj = time(seconds / 2, () -> pool.invoke(new Rows(0, HEIGHT)), expected);
        double[] stream = time(seconds / 2, () -> IntStream.range(0, HEIGHT).parallel().mapToLong(y -> rows(y, y + 1)).sum(), expected);
        var rows = Threads.rows();
        pool.shutdown();

        result.metric("fj-best", fj[0], "ms", "lower")
                .metric("fj-median", fj[1], "ms", "lower")
                .metric("stream-best", stream[0], "ms", "lower")
                .metric("stream-median", stream[1], "ms", "lower")
                .note(threads + " fj workers, common pool parallelism " + ForkJoinPool.getCommonPoolParallelism());
        if (openhft) {
            boolean ours = ForkJoinPool.commonPool().getFactory() instanceof HandPinned.CommonPoolFactory;
            result.note("OpenHFT " + HandPinned.impl() + (ours ? "" : ", common pool NOT hand-pinned (factory set too late)"));
        }
        result.print(rows, System.out);
    }

    /** Best and median ms of as many runs as fit in {@code seconds} (at least 3). */
    static double[] time(double seconds, java.util.function.LongSupplier job, long expected) {
        List<Double> ms = new ArrayList<>();
        long end = System.nanoTime() + (long) (seconds * 1e9);
        while (ms.size() < 3 || System.nanoTime() < end) {
            long t0 = System.nanoTime();
            long v = job.getAsLong();
            ms.add((System.nanoTime() - t0) / 1e6);
            if (v != expected) throw new AssertionError("checksum " + v + " != " + expected);
        }
        double[] all = ms.stream().mapToDouble(Double::doubleValue).toArray();
        return new double[] {java.util.Arrays.stream(all).min().orElse(0), Threads.median(all)};
    }

    /** Total Mandelbrot iterations of rows {@code [y0, y1)}. */
    static long rows(int y0, int y1) {
        Threads.seen();
        long total = 0;
        for (int y = y0; y < y1; y++) {
            double ci = -1.2 + 2.4 * y / HEIGHT;
            for (int x = 0; x < WIDTH; x++) {
                double cr = -2.2 + 3.2 * x / WIDTH;
                double zr = 0, zi = 0;
                int k = 0;
                while (k < MAX_ITER && zr * zr + zi * zi <= 4) {
                    double t = zr * zr - zi * zi + cr;
                    zi = 2 * zr * zi + ci;
                    zr = t;
                    k++;
                }
                total += k;
            }
        }
        return total;
    }

    static final class Rows extends RecursiveTask<Long> {
        private static final long serialVersionUID = 1L;
        private final int y0;
        private final int y1;

        Rows(int y0, int y1) {
            this.y0 = y0;
            this.y1 = y1;
        }

        @Override
        protected Long compute() {
            if (y1 - y0 <= 4) return rows(y0, y1);
            int mid = (y0 + y1) >>> 1;
            Rows left = new Rows(y0, mid);
            left.fork();
            return new Rows(mid, y1).compute() + left.join();
        }
    }
}
