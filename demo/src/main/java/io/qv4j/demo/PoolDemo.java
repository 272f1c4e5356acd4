package io.qv4j.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A fixed thread pool doing CPU work; each worker reports where the kernel lets it run
 * ({@code Cpus_allowed_list}) and how often it migrated ({@code nr_migrations}).
 * Usage: {@code PoolDemo [WORKERS] [MILLIS]}.
 */
public final class PoolDemo {

    private PoolDemo() {
    }

    public static void main(String[] args) throws Exception {
        int workers = args.length > 0 ? Integer.parseInt(args[0]) : Runtime.getRuntime().availableProcessors();
        long millis = args.length > 1 ? Long.parseLong(args[1]) : 500;
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        List<Future<String>> rows = new ArrayList<>();
        for (int i = 0; i < workers; i++) rows.add(pool.submit(() -> work(millis)));
        System.out.printf("%-20s %-8s %-12s %s%n", "thread", "tid", "allowed", "migrations");
        for (Future<String> row : rows) System.out.println(row.get());
        pool.shutdown();
    }

    private static String work(long millis) throws IOException {
        long end = System.nanoTime() + millis * 1_000_000;
        double x = 0;
        while (System.nanoTime() < end) x += Math.sqrt(x + 1);
        Path self = Path.of("/proc/thread-self");
        String tid = Files.readSymbolicLink(self).getFileName().toString();
        return String.format("%-20s %-8s %-12s %s%s", Thread.currentThread().getName(), tid,
                field(self.resolve("status"), "Cpus_allowed_list:"), field(self.resolve("sched"), "se.nr_migrations"),
                x < 0 ? "!" : "");
    }

    private static String field(Path file, String key) throws IOException {
        for (String line : Files.readAllLines(file)) {
            if (line.startsWith(key)) return line.substring(line.indexOf(':') + 1).strip();
        }
        return "?";
    }
}
