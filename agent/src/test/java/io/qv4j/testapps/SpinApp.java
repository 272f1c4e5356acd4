package io.qv4j.testapps;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fixed pool of {@code args[0]} CPU-bound workers that spin for {@code args[1]} ms each: each
 * prints {@code thread NAME tid=TID cpus=LIST} as it starts (so a test can watch its kernel mask
 * from outside), and the JVM prints {@code done millis=M} at the end.
 */
public final class SpinApp {

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        long millis = Long.parseLong(args[1]);
        AtomicInteger named = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(n, r -> new Thread(r, "spin-" + named.incrementAndGet()));
        long t0 = System.nanoTime();
        List<Future<Long>> done = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            done.add(pool.submit(() -> {
                String tid = Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
                String cpus = "?";
                for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                    if (line.startsWith("Cpus_allowed_list:")) cpus = line.substring(18).strip();
                }
                synchronized (System.out) {
                    System.out.println("thread " + Thread.currentThread().getName() + " tid=" + tid + " cpus=" + cpus);
                    System.out.flush();
                }
                long end = System.nanoTime() + millis * 1_000_000L;
                long x = 1;
                while (System.nanoTime() < end) {
                    for (int k = 0; k < 10_000; k++) x = x * 6364136223846793005L + 1442695040888963407L;
                }
                return x;
            }));
        }
        long sum = 0;
        for (Future<Long> f : done) sum += f.get();
        System.out.println("done millis=" + (System.nanoTime() - t0) / 1_000_000 + (sum == 42 ? "!" : ""));
        pool.shutdown();
    }
}
