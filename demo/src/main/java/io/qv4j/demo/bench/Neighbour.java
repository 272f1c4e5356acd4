package io.qv4j.demo.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One JVM of a pair sharing the machine ({@code scripts/bench-neighbours}): a fixed pool of one
 * worker runs a CPU-bound job of {@code N} million steps; prints {@code millis=M cpus=LIST}, the
 * job's wall time and where the kernel let the worker run.
 */
public final class Neighbour {

    public static void main(String[] args) throws Exception {
        long steps = Long.parseLong(args.length > 0 ? args[0] : "400") * 1_000_000L;
        ExecutorService pool = Executors.newFixedThreadPool(1);
        pool.submit(() -> { }).get(); // the worker is placed before the clock starts
        long t0 = System.nanoTime();
        Future<String> f = pool.submit(() -> {
            long x = 1;
            for (long i = 0; i < steps; i++) x = x * 6364136223846793005L + 1442695040888963407L;
            String cpus = "?";
            for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                if (line.startsWith("Cpus_allowed_list:")) cpus = line.substring(18).strip();
            }
            return (x == 42 ? "!" : "") + cpus;
        });
        String cpus = f.get();
        System.out.println("millis=" + (System.nanoTime() - t0) / 1_000_000 + " cpus=" + cpus);
        pool.shutdown();
    }
}
