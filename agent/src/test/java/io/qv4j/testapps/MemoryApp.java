package io.qv4j.testapps;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where the pages of each pool worker's buffer went: for each ID given, a fixed pool of TASKS
 * workers named {@code ID-N}, one pool after the other, each worker allocating a direct buffer of
 * MIB MiB and writing every page of it, one worker at a time. The kernel merges adjacent anonymous
 * mappings, so a buffer has no line of its own in {@code /proc/self/numa_maps}: the JVM reads each
 * node's pages over all its mappings before and after each worker's turn, and prints
 * {@code mem ID-N cpus=LIST N0=PAGES N1=PAGES ...}, the difference (the buffer, give or take what
 * the JVM itself touched meanwhile). The buffers are kept, so that {@code -XX:MaxDirectMemorySize}
 * must hold them all. Arguments: TASKS MIB ID... ({@code main}: the main thread's own buffer;
 * {@code keep}: the pools' workers stay, on their pieces, until the JVM exits, as a report at exit sees them).
 */
public final class MemoryApp {

    private static final List<ByteBuffer> KEPT = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        int tasks = Integer.parseInt(args[0]);
        int mib = Integer.parseInt(args[1]);
        boolean keep = List.of(args).contains("keep");
        for (int a = 2; a < args.length; a++) {
            String id = args[a];
            if (id.equals("keep")) continue;
            if (id.equals("main")) { // the main thread's own buffer
                long[] before = pagesByNode();
                ByteBuffer b = ByteBuffer.allocateDirect(mib << 20);
                for (int at = 0; at < b.capacity(); at += 4096) b.put(at, (byte) 1);
                KEPT.add(b);
                print("main cpus=" + PoolApp.cpus("/proc/thread-self/status"), before, pagesByNode());
                continue;
            }
            AtomicInteger n = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(tasks, r -> new Thread(r, id + "-" + n.incrementAndGet()));
            CountDownLatch started = new CountDownLatch(tasks);
            CountDownLatch end = new CountDownLatch(1);
            Semaphore turn = new Semaphore(0);
            Semaphore done = new Semaphore(0);
            String[] who = new String[1];
            for (int i = 0; i < tasks; i++) {
                pool.execute(() -> {
                    started.countDown(); // every worker runs one task, pinned by now
                    try {
                        turn.acquire();
                        try {
                            ByteBuffer b = ByteBuffer.allocateDirect(mib << 20);
                            for (int at = 0; at < b.capacity(); at += 4096) b.put(at, (byte) 1);
                            KEPT.add(b);
                            who[0] = Thread.currentThread().getName() + " cpus=" + PoolApp.cpus("/proc/thread-self/status");
                        } catch (Throwable t) {
                            who[0] = Thread.currentThread().getName() + " failed: " + t;
                        } finally {
                            done.release();
                        }
                        end.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            if (!started.await(120, TimeUnit.SECONDS)) System.out.println("mem " + id + " workers never started");
            long[] before = pagesByNode(); // one reading per turn: under TCG each takes a while
            for (int i = 0; i < tasks; i++) {
                turn.release();
                if (!done.tryAcquire(120, TimeUnit.SECONDS)) break;
                long[] after = pagesByNode();
                print(who[0], before, after);
                before = after;
            }
            if (keep) continue;
            end.countDown();
            pool.shutdown();
            pool.awaitTermination(60, TimeUnit.SECONDS);
        }
        System.out.println("memory done");
        if (keep) System.exit(0);
    }

    /** {@code mem WHO N0=PAGES ...}: what each node gained. */
    private static void print(String who, long[] before, long[] after) {
        StringBuilder s = new StringBuilder("mem " + who);
        for (int k = 0; k < after.length; k++) s.append(" N").append(k).append('=').append(Math.max(0, after[k] - (k < before.length ? before[k] : 0)));
        System.out.println(s);
    }

    /** This JVM's resident pages on each node, over all its mappings. */
    static long[] pagesByNode() throws Exception {
        TreeMap<Integer, Long> by = new TreeMap<>();
        for (String line : Files.readAllLines(Path.of("/proc/self/numa_maps"))) {
            for (String f : line.split(" ")) {
                int eq = f.indexOf('=');
                if (f.length() > 1 && f.charAt(0) == 'N' && eq > 1 && Character.isDigit(f.charAt(1))) {
                    by.merge(Integer.parseInt(f.substring(1, eq)), Long.parseLong(f.substring(eq + 1)), Long::sum);
                }
            }
        }
        long[] out = new long[by.isEmpty() ? 0 : by.lastKey() + 1];
        by.forEach((k, v) -> out[k] = v);
        return out;
    }
}
