package io.qv4j.demo.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One JVM beside busy neighbours ({@code scripts/bench-neighbours}): a fixed pool of
 * {@code args[1]} workers (default 1) each runs a CPU-bound job of {@code args[0]} million steps;
 * prints {@code millis=M cpus=LIST[/LIST...]}, the wall time until the last job ended and where the
 * kernel let each worker run at its end.
 */
public final class Neighbour {

    public static void main(String[] args) throws Exception {
        long steps = Long.parseLong(args.length > 0 ? args[0] : "400") * 1_000_000L;
        int workers = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        List<Future<?>> warm = new ArrayList<>();
        for (int i = 0; i < workers; i++) warm.add(pool.submit(() -> { }));
        for (Future<?> f : warm) f.get(); // the workers are placed before the clock starts
        long t0 = System.nanoTime();
        List<Future<String>> jobs = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            jobs.add(pool.submit(() -> {
                long x = 1;
                for (long i = 0; i < steps; i++) x = x * 6364136223846793005L + 1442695040888963407L;
                String cpus = "?";
                for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                    if (line.startsWith("Cpus_allowed_list:")) cpus = line.substring(18).strip();
                }
                return (x == 42 ? "!" : "") + cpus;
            }));
        }
        StringBuilder cpus = new StringBuilder();
        for (Future<String> f : jobs) cpus.append(cpus.length() == 0 ? "" : "/").append(f.get());
        System.out.println("millis=" + (System.nanoTime() - t0) / 1_000_000 + " cpus=" + cpus);
        pool.shutdown();
    }
}
