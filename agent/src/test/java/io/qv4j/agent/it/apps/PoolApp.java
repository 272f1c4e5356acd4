package io.qv4j.agent.it.apps;

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
            default -> throw new IllegalArgumentException(mode);
        }
        new TreeMap<>(SEEN).forEach((k, v) -> System.out.println(v));
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
                String comm = Files.readString(task.resolve("comm")).strip();
                SEEN.put("~" + comm + task.getFileName(), "task " + comm.replace(' ', '_') + " tid=" + task.getFileName() + " cpus=" + cpus(task + "/status"));
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
