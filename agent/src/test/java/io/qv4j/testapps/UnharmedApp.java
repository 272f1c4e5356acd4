package io.qv4j.testapps;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

/**
 * Applications that do what the agent must survive: their own thread placement, their own
 * standard error, pools of virtual threads. Each mode prints {@code thread NAME tid=TID cpus=LIST}
 * for every worker (kernel view, read by the worker) or {@code carrier ...} for every carrier of
 * the virtual-thread scheduler, then {@code done}. A watchdog ends a run that hangs after 30 s
 * with {@code hung} and exit code 2, so a deadlock fails a test instead of stalling it.
 * <ul>
 *   <li>{@code selfbound PU [N]}: a pool of N threads (default 1) whose thread factory binds each
 *       thread to PU ({@code taskset}) before it runs anything;</li>
 *   <li>{@code errpool}: {@code System.err} replaced by a stream that hands every write to a
 *       one-thread pool and waits for it; then a fixed pool of 2 runs; prints how many bytes went
 *       through that stream ({@code err-bytes N});</li>
 *   <li>{@code virtualpool} (JDK 21+): a fixed pool of 2 whose thread factory makes virtual
 *       threads, 1,000 tasks with checked results ({@code ok N}).</li>
 *   <li>{@code spawn}: a fixed pool of 2 ({@code work-N}) whose tasks each start a plain thread
 *       ({@code helper-of-work-N}) and run a task on the common pool and a parallel stream, so that the common pool's workers
 *       are started by a pool worker; those threads print {@code spawned NAME tid=TID cpus=LIST}.</li>
 * </ul>
 */
public final class UnharmedApp {

    private static final Map<String, String> SEEN = new ConcurrentHashMap<>();

    public static void main(String[] args) throws Exception {
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(30_000);
            } catch (InterruptedException e) {
                return;
            }
            System.out.println("hung");
            System.out.flush();
            Runtime.getRuntime().halt(2);
        }, "watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        switch (args[0]) {
            case "selfbound" -> selfBound(args[1], args.length > 2 ? Integer.parseInt(args[2]) : 1);
            case "errpool" -> errPool();
            case "virtualpool" -> virtualPool();
            case "spawn" -> spawn();
            default -> throw new IllegalArgumentException(args[0]);
        }
        new TreeMap<>(SEEN).forEach((k, v) -> System.out.println(v));
        System.out.println("done");
    }

    private static void selfBound(String pu, int threads) throws Exception {
        AtomicInteger n = new AtomicInteger();
        ThreadFactory binding = r -> new Thread(() -> {
            try {
                String tid = Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
                Process p = new ProcessBuilder("taskset", "-p", "-c", pu, tid).redirectErrorStream(true).start();
                p.getInputStream().readAllBytes();
                if (p.waitFor() != 0) throw new IllegalStateException("taskset failed");
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
            r.run();
        }, "self-" + n.incrementAndGet());
        runPool(Executors.newFixedThreadPool(threads, binding), threads);
    }

    private static void errPool() throws Exception {
        ExecutorService writer = Executors.newSingleThreadExecutor(r -> new Thread(r, "err-writer"));
        PrintStream original = System.err;
        AtomicInteger bytes = new AtomicInteger();
        System.setErr(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                byte[] copy = Arrays.copyOfRange(b, off, off + len);
                try {
                    writer.submit(() -> {
                        original.write(copy, 0, copy.length);
                        bytes.addAndGet(copy.length);
                    }).get();
                } catch (Exception e) {
                    throw new IOException(e);
                }
            }
        }, true));
        System.err.println("app: standard error through a pool");
        AtomicInteger n = new AtomicInteger();
        runPool(Executors.newFixedThreadPool(2, r -> new Thread(r, "work-" + n.incrementAndGet())), 2);
        writer.shutdown();
        System.out.println("err-bytes " + bytes.get());
    }

    private static void virtualPool() throws Exception {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        ThreadFactory virtual = (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder);
        ExecutorService pool = Executors.newFixedThreadPool(2, virtual);
        List<Future<Long>> results = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            final long k = i;
            results.add(pool.submit(() -> {
                Thread.yield();
                return k * k;
            }));
        }
        int ok = 0;
        for (int i = 0; i < results.size(); i++) if (results.get(i).get() == (long) i * i) ok++;
        pool.shutdown();
        System.out.println("ok " + ok);
        try (var s = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) s::iterator) {
                try {
                    String comm = Files.readString(task.resolve("comm")).strip();
                    if (comm.startsWith("ForkJoinPool")) System.out.println("carrier " + comm + "-" + task.getFileName() + " tid=" + task.getFileName() + " cpus=" + cpus(task));
                } catch (NoSuchFileException ended) {
                    // a thread that ended since the listing (the pool's, after shutdown)
                }
            }
        }
    }

    private static void spawn() throws Exception {
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(2, r -> new Thread(r, "work-" + n.incrementAndGet()));
        CountDownLatch all = new CountDownLatch(2);
        List<Future<?>> fs = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            fs.add(pool.submit(() -> {
                all.countDown();
                all.await();
                record("thread", Thread.currentThread().getName());
                Thread helper = new Thread(() -> record("spawned", Thread.currentThread().getName()), "helper-of-" + Thread.currentThread().getName());
                helper.start();
                helper.join();
                // a task the common pool surely runs on a worker of its own, then a parallel stream
                ForkJoinPool.commonPool().submit(() -> record("spawned", Thread.currentThread().getName())).get();
                IntStream.range(0, 256).parallel().forEach(k -> {
                    String name = Thread.currentThread().getName();
                    if (name.startsWith("ForkJoinPool.commonPool")) record("spawned", name);
                    double x = 0;
                    for (int j = 0; j < 20_000; j++) x += Math.sqrt(j + k);
                    if (x < 0) System.out.println(x);
                });
                return null;
            }));
        }
        for (Future<?> f : fs) f.get();
        pool.shutdown();
    }

    /** Records {@code KIND NAME tid=TID cpus=LIST} for the calling thread, once per name. */
    private static void record(String kind, String name) {
        SEEN.computeIfAbsent(name, k -> {
            try {
                Path self = Path.of("/proc/thread-self");
                return kind + " " + name + " tid=" + Files.readSymbolicLink(self).getFileName() + " cpus=" + cpus(self);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** {@code n} tasks on {@code n} workers at once (a latch of n), each recording its thread's kernel view. */
    private static void runPool(ExecutorService pool, int n) throws Exception {
        CountDownLatch all = new CountDownLatch(n);
        List<Future<?>> fs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            fs.add(pool.submit(() -> {
                all.countDown();
                all.await();
                Path self = Path.of("/proc/thread-self");
                String tid = Files.readSymbolicLink(self).getFileName().toString();
                String name = Thread.currentThread().getName();
                SEEN.put(name, "thread " + name + " tid=" + tid + " cpus=" + cpus(self));
                return null;
            }));
        }
        for (Future<?> f : fs) f.get();
        pool.shutdown();
    }

    private static String cpus(Path task) throws IOException {
        for (String l : Files.readAllLines(task.resolve("status"))) {
            if (l.startsWith("Cpus_allowed_list:")) return l.substring(l.indexOf(':') + 1).strip();
        }
        return "?";
    }
}
