package io.qv4j.testapps;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * mappings, so a buffer has no line of its own in {@code /proc/self/numa_maps}: the JVM finds the
 * mapping that holds the buffer's address after its turn and subtracts what the mappings inside
 * it held before (both from {@code numa_maps}), and prints {@code mem ID-N cpus=LIST N0=PAGES N1=PAGES ...}, the buffer's pages
 * by node (a difference over all the JVM's mappings counted the pages its other threads touched
 * meanwhile: once 1,123 of 17,511). The buffers are kept, so that {@code -XX:MaxDirectMemorySize}
 * must hold them all. Run with {@code --add-opens java.base/java.nio=ALL-UNNAMED} (a buffer's
 * address). Arguments: TASKS MIB ID... ({@code main}: the main thread's own buffer; {@code keep}:
 * the pools' workers stay, on their pieces, until the JVM exits, as a report at exit sees them).
 */
public final class MemoryApp {

    private static final List<ByteBuffer> KEPT = new ArrayList<>();
    /** The nodes the kernel has, counted once: every buffer's line names them all. */
    private static final int NODES = nodes();

    public static void main(String[] args) throws Exception {
        int tasks = Integer.parseInt(args[0]);
        int mib = Integer.parseInt(args[1]);
        boolean keep = List.of(args).contains("keep");
        for (int a = 2; a < args.length; a++) {
            String id = args[a];
            if (id.equals("keep")) continue;
            if (id.equals("main")) { // the main thread's own buffer
                TreeMap<Long, long[]> before = mappings();
                ByteBuffer b = ByteBuffer.allocateDirect(mib << 20);
                for (int at = 0; at < b.capacity(); at += 4096) b.put(at, (byte) 1);
                KEPT.add(b);
                print("main cpus=" + PoolApp.cpus("/proc/thread-self/status"), gain(before, address(b)));
                continue;
            }
            AtomicInteger n = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(tasks, r -> new Thread(r, id + "-" + n.incrementAndGet()));
            CountDownLatch started = new CountDownLatch(tasks);
            CountDownLatch end = new CountDownLatch(1);
            Semaphore turn = new Semaphore(0);
            Semaphore done = new Semaphore(0);
            String[] who = new String[1];
            long[] address = new long[1];
            for (int i = 0; i < tasks; i++) {
                pool.execute(() -> {
                    started.countDown(); // every worker runs one task, pinned by now
                    try {
                        turn.acquire();
                        try {
                            ByteBuffer b = ByteBuffer.allocateDirect(mib << 20);
                            for (int at = 0; at < b.capacity(); at += 4096) b.put(at, (byte) 1);
                            KEPT.add(b);
                            address[0] = address(b);
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
            TreeMap<Long, long[]> before = mappings(); // one reading per turn: under TCG each takes a while
            for (int i = 0; i < tasks; i++) {
                turn.release();
                if (!done.tryAcquire(120, TimeUnit.SECONDS)) break;
                TreeMap<Long, long[]> after = mappings();
                print(who[0], address[0] == 0 ? new long[0] : gain(before, after, address[0]));
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

    /** {@code mem WHO N0=PAGES ...}: the buffer's pages on each node. */
    private static void print(String who, long[] pages) {
        StringBuilder s = new StringBuilder("mem " + who);
        for (int k = 0; k < pages.length; k++) s.append(" N").append(k).append('=').append(pages[k]);
        System.out.println(s);
    }

    private static long address(ByteBuffer b) throws ReflectiveOperationException {
        Field f = Buffer.class.getDeclaredField("address");
        f.setAccessible(true);
        return f.getLong(b);
    }

    private static long[] gain(TreeMap<Long, long[]> before, long address) throws IOException {
        return gain(before, mappings(), address);
    }

    /**
     * What the mapping holding {@code address} gained on each node: its pages now less those of the
     * mappings that lay inside it before (the buffers kept beside it, merged with it). It reaches
     * at most to the next mapping's start; one reading of {@code numa_maps} gives both.
     */
    private static long[] gain(TreeMap<Long, long[]> before, TreeMap<Long, long[]> after, long address) {
        Map.Entry<Long, long[]> holder = after.floorEntry(address);
        if (holder == null) return new long[0];
        Long next = after.higherKey(holder.getKey());
        long[] out = holder.getValue().clone();
        for (long[] was : (next == null ? before.tailMap(holder.getKey()) : before.subMap(holder.getKey(), next)).values()) {
            for (int k = 0; k < out.length; k++) out[k] -= was[k];
        }
        for (int k = 0; k < out.length; k++) out[k] = Math.max(0, out[k]);
        return out;
    }

    /** One more than the highest node number in {@code /sys/devices/system/node}; 1 where it is absent. */
    private static int nodes() {
        int highest = 0;
        try (var dir = Files.newDirectoryStream(Path.of("/sys/devices/system/node"), "node[0-9]*")) {
            for (Path p : dir) highest = Math.max(highest, Integer.parseInt(p.getFileName().toString().substring(4)));
        } catch (IOException | NumberFormatException e) {
            return 1;
        }
        return highest + 1;
    }

    /** Each mapping's resident pages by node, by its start address, from {@code /proc/self/numa_maps}. */
    private static TreeMap<Long, long[]> mappings() throws IOException {
        TreeMap<Long, long[]> out = new TreeMap<>();
        for (String line : Files.readAllLines(Path.of("/proc/self/numa_maps"))) {
            String[] fields = line.split(" ");
            long[] pages = new long[NODES];
            for (String f : fields) {
                int eq = f.indexOf('=');
                if (f.length() > 1 && f.charAt(0) == 'N' && eq > 1 && Character.isDigit(f.charAt(1))) {
                    int node = Integer.parseInt(f.substring(1, eq));
                    if (node < NODES) pages[node] = Long.parseLong(f.substring(eq + 1));
                }
            }
            out.put(Long.parseUnsignedLong(fields[0], 16), pages);
        }
        return out;
    }
}
