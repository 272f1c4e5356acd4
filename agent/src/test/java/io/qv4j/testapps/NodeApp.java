package io.qv4j.testapps;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The application for the several-JVMs tests. Modes:
 * <ul>
 * <li>{@code threads}: one fixed pool of one thread runs a task, then every task of the process
 * prints {@code task COMM tid=TID cpus=LIST} (kernel view from /proc/self/task/TID/status), and
 * {@code processors main=N worker=N}: {@code availableProcessors()} on main and in the task;</li>
 * <li>{@code threads-together DIR N}: as {@code threads}, the task lines printed once {@code N} such processes
 * have placed their pool (each leaves a file in {@code DIR}), so that they are all alive together;</li>
 * <li>{@code hold}: the pool's worker prints {@code thread NAME tid=TID cpus=LIST}, then the JVM waits
 * until its stdin closes (or it is killed);</li>
 * <li>{@code openhft CPU}: plain OpenHFT code locks CPU {@code CPU} with an {@code AffinityLock},
 * prints {@code locked CPU}, and holds it until stdin closes;</li>
 * <li>{@code openhft-any}: plain OpenHFT code asks for any free CPU ({@code AffinityLock.acquireLock()}),
 * prints {@code locked CPU} or {@code locked none}, releases it and ends.</li>
 * </ul>
 */
public final class NodeApp {

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "threads" -> {
                ExecutorService pool = Executors.newFixedThreadPool(1);
                int worker = pool.submit(() -> Runtime.getRuntime().availableProcessors()).get();
                for (String line : tasks()) System.out.println(line);
                System.out.println("processors main=" + Runtime.getRuntime().availableProcessors() + " worker=" + worker);
                pool.shutdown();
            }
            case "threads-together" -> {
                // as threads, but the task lines come once N processes have placed their pool (files in DIR): all alive together
                ExecutorService pool = Executors.newFixedThreadPool(1);
                pool.submit(() -> { }).get();
                Path dir = Path.of(args[1]);
                Files.createDirectories(dir);
                Files.writeString(dir.resolve("placed-" + ProcessHandle.current().pid()), "");
                long end = System.nanoTime() + 60_000_000_000L;
                while (System.nanoTime() < end) {
                    try (var s = Files.list(dir)) {
                        if (s.count() >= Integer.parseInt(args[2])) break;
                    }
                    Thread.sleep(50);
                }
                for (String line : tasks()) System.out.println(line);
                pool.shutdown();
            }
            case "hold" -> {
                ExecutorService pool = Executors.newFixedThreadPool(1);
                String line = pool.submit(() -> "thread " + Thread.currentThread().getName() + " tid=" + PoolApp.tid()
                        + " cpus=" + PoolApp.cpus("/proc/thread-self/status")).get();
                System.out.println(line);
                System.out.flush();
                System.in.read();
                pool.shutdown();
            }
            case "openhft" -> {
                int cpu = Integer.parseInt(args[1]);
                net.openhft.affinity.AffinityLock lock = net.openhft.affinity.AffinityLock.acquireLock(new int[] {cpu});
                System.out.println("locked " + lock.cpuId());
                System.out.flush();
                System.in.read();
                lock.release();
            }
            case "openhft-any" -> {
                net.openhft.affinity.AffinityLock lock = net.openhft.affinity.AffinityLock.acquireLock();
                System.out.println("locked " + (lock.isAllocated() ? String.valueOf(lock.cpuId()) : "none"));
                System.out.flush();
                lock.release();
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
        System.exit(0);
    }

    static java.util.List<String> tasks() throws IOException {
        java.util.List<String> out = new java.util.ArrayList<>();
        try (var s = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) s::iterator) {
                try {
                    String comm = Files.readString(task.resolve("comm")).strip().replace(' ', '_');
                    out.add("task " + comm + " tid=" + task.getFileName() + " cpus=" + PoolApp.cpus(task + "/status"));
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        }
        return out;
    }
}
