package io.qv4j.testapps;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * A small application for the agent's integration tests. Each mode runs some pools and prints
 * one line per worker: {@code thread NAME tid=TID cpus=LIST} (the kernel's Cpus_allowed_list,
 * read by the worker itself from /proc/thread-self/status).
 */
public final class PoolApp {

    private static final Map<String, String> SEEN = new ConcurrentHashMap<>();

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "fixed";
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        switch (mode) {
            case "fixed" -> {
                ExecutorService pool = Executors.newFixedThreadPool(n);
                runAll(pool, n);
                pool.shutdown();
            }
            case "native" -> {
                // the application's own native code: what the JVM says to it must not depend on the agent
                ExecutorService pool = Executors.newFixedThreadPool(n);
                runAll(pool, n);
                pool.shutdown();
                try {
                    System.load("/nonexistent/libqv4j-application.so");
                } catch (Throwable t) {
                    System.out.println("load " + t);
                }
            }
            case "fj" -> {
                ForkJoinPool pool = new ForkJoinPool(n);
                runAll(pool, n);
                pool.shutdown();
            }
            case "stream" -> {
                IntStream.range(0, 2000).parallel().forEach(i -> {
                    record();
                    sleep(1);
                });
            }
            case "cached" -> {
                ExecutorService pool = Executors.newCachedThreadPool();
                runAll(pool, n);
                pool.shutdown();
            }
            case "two" -> {
                ExecutorService a = Executors.newFixedThreadPool(1, r -> new Thread(r, "first-1"));
                a.submit(PoolApp::record).get();
                ExecutorService b = Executors.newFixedThreadPool(1, r -> new Thread(r, "second-1"));
                b.submit(PoolApp::record).get();
                a.shutdown();
                b.shutdown();
            }
            case "die" -> {
                int[] k = {0};
                ExecutorService pool = Executors.newFixedThreadPool(1, r -> new Thread(r, "victim-" + (++k[0])));
                pool.submit(PoolApp::record).get();
                pool.execute(() -> {
                    throw new IllegalStateException("boom (expected by the test)");
                });
                Thread.sleep(200);
                pool.submit(PoolApp::record).get();
                pool.shutdown();
            }
            case "reaper" -> {
                ExecutorService pool = Executors.newFixedThreadPool(1);
                pool.submit(PoolApp::record).get();
                Process p = new ProcessBuilder("true").start();
                p.waitFor();
                Thread.sleep(100);
                allThreads();
                pool.shutdown();
            }
            case "calc" -> {
                // deterministic output and exit code for the robustness tests
                ExecutorService pool = Executors.newFixedThreadPool(n);
                long sum = 0;
                List<java.util.concurrent.Future<Long>> fs = new ArrayList<>();
                for (int i = 0; i < 16; i++) {
                    int x = i;
                    fs.add(pool.submit(() -> (long) x * x));
                }
                for (var f : fs) sum += f.get();
                pool.shutdown();
                long fj = new ForkJoinPool(n).submit(() -> IntStream.rangeClosed(1, 100).parallel().sum()).get();
                System.out.println("sum " + sum + " fj " + fj);
                System.exit(3);
            }
            case "attach" -> {
                // workers already running when the agent arrives must catch up at their next task
                ExecutorService pool = Executors.newFixedThreadPool(n);
                runAll(pool, n);
                SEEN.clear();
                com.sun.tools.attach.VirtualMachine vm = com.sun.tools.attach.VirtualMachine.attach(String.valueOf(ProcessHandle.current().pid()));
                vm.loadAgent(System.getProperty("attach.agentJar"), System.getProperty("attach.agentArgs"));
                vm.detach();
                // the agent's start-up is asynchronous: keep giving the workers tasks (each getTask is a
                // catch-up point) until they are pinned or the time (args[2], ms) has passed; report the last state
                long end = System.nanoTime() + (args.length > 2 ? Long.parseLong(args[2]) : 5000) * 1_000_000L;
                do {
                    SEEN.clear();
                    runAll(pool, n);
                } while (System.nanoTime() < end && SEEN.values().stream().anyMatch(l -> l.matches(".*cpus=.*[-,].*")));
                pool.shutdown();
            }
            case "rebalance" -> {
                // args: A-threads B-threads busy(b|ab) millis [until-moved]
                rebalance(n, Integer.parseInt(args[2]), args[3], Long.parseLong(args[4]), args.length > 5 && args[5].equals("until-moved"));
                return;
            }
            default -> throw new IllegalArgumentException(mode);
        }
        new TreeMap<>(SEEN).forEach((k, v) -> System.out.println(v));
    }

    private static final Map<String, List<String>> HISTORY = new ConcurrentHashMap<>();

    /**
     * Two fixed pools, {@code a} (made first) and {@code b}; the busy ones run tasks that spin for
     * 20 ms, so each worker passes {@code getTask} (the agent's catch-up point) 50 times a second.
     * Every task appends its thread's Cpus_allowed_list to the thread's history when it changed.
     * Runs for {@code millis}, or with {@code untilMoved} until every b worker has moved and all
     * of them are on the same PUs. Prints {@code history NAME L1>L2>...} per thread.
     */
    private static void rebalance(int na, int nb, String busy, long millis, boolean untilMoved) throws Exception {
        ExecutorService a = Executors.newFixedThreadPool(na, named("a"));
        ExecutorService b = Executors.newFixedThreadPool(nb, named("b"));
        spin(a, na, 0);
        spin(b, nb, 0);
        long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) {
            List<java.util.concurrent.Future<?>> fs = new ArrayList<>();
            if (busy.contains("a")) fs.addAll(spin(a, na, 20));
            if (busy.contains("b")) fs.addAll(spin(b, nb, 20));
            for (var f : fs) f.get();
            if (untilMoved && moved(nb)) break;
        }
        a.shutdown();
        b.shutdown();
        new TreeMap<>(HISTORY).forEach((k, v) -> System.out.println("history " + k + " " + String.join(">", v)));
    }

    private static boolean moved(int nb) {
        java.util.Set<String> last = new java.util.HashSet<>();
        for (int i = 1; i <= nb; i++) {
            List<String> h = HISTORY.get("b-" + i);
            if (h == null) return false;
            last.add(h.get(h.size() - 1));
        }
        if (last.size() != 1) return false;
        for (int i = 1; i <= nb; i++) if (HISTORY.get("b-" + i).size() > 1) return true;
        return false;
    }

    private static java.util.concurrent.ThreadFactory named(String prefix) {
        int[] k = {0};
        return r -> new Thread(r, prefix + "-" + (++k[0]));
    }

    private static List<java.util.concurrent.Future<?>> spin(ExecutorService pool, int n, long millis) throws InterruptedException {
        List<java.util.concurrent.Future<?>> fs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            fs.add(pool.submit(() -> {
                String cpus = cpus("/proc/thread-self/status");
                List<String> h = HISTORY.computeIfAbsent(Thread.currentThread().getName(), k -> new java.util.concurrent.CopyOnWriteArrayList<>());
                if (h.isEmpty() || !h.get(h.size() - 1).equals(cpus)) h.add(cpus);
                long stop = System.nanoTime() + millis * 1_000_000L;
                long x = 0;
                while (System.nanoTime() < stop) x += x * 31 + 7;
                return x;
            }));
        }
        if (millis == 0) for (var f : fs) {
            try {
                f.get();
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException(e);
            }
        }
        return fs;
    }

    private static void runAll(ExecutorService pool, int n) throws InterruptedException {
        CountDownLatch all = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            pool.execute(() -> {
                record();
                all.countDown();
                try {
                    all.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        all.await(20, TimeUnit.SECONDS);
    }

    static void record() {
        Thread t = Thread.currentThread();
        SEEN.computeIfAbsent(t.getName(), k -> "thread " + k + " tid=" + tid() + " cpus=" + cpus("/proc/thread-self/status"));
    }

    private static void allThreads() throws IOException {
        try (var s = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) s::iterator) {
                try {
                    String comm = Files.readString(task.resolve("comm")).strip();
                    SEEN.put("~" + comm + task.getFileName(), "task " + comm.replace(' ', '_') + " tid=" + task.getFileName() + " cpus=" + cpus(task + "/status"));
                } catch (IOException ended) {
                    // the thread ended since the listing
                }
            }
        }
    }

    static String tid() {
        try {
            String s = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString();
            return s.substring(s.lastIndexOf('/') + 1);
        } catch (IOException e) {
            return "?";
        }
    }

    static String cpus(String status) {
        try {
            for (String line : Files.readAllLines(Path.of(status))) {
                if (line.startsWith("Cpus_allowed_list:")) return line.substring(18).strip();
            }
        } catch (IOException e) {
            return "?";
        }
        return "?";
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
