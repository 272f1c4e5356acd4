package io.qv4j.testapps;

import io.qv4j.api.Bind;
import io.qv4j.topology.HwType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A pool made inside a {@code @Bind} call (pool {@code inner}) and the same pool made from
 * {@code main} (pool {@code outer}). Prints {@code thread NAME tid=TID cpus=LIST} per worker.
 */
public final class NestedApp {

    public static void main(String[] args) throws Exception {
        inBind();
        runPool("outer");
    }

    @Bind(splitAt = HwType.CORE)
    static void inBind() throws Exception {
        runPool("inner");
    }

    static void runPool(String name) throws Exception {
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(2, r -> new Thread(r, name + "-" + n.incrementAndGet()));
        Future<?>[] fs = new Future<?>[2];
        for (int i = 0; i < 2; i++) fs[i] = pool.submit(NestedApp::print);
        for (Future<?> f : fs) f.get();
        pool.shutdown();
    }

    private static void print() {
        try {
            Thread.sleep(50); // both workers alive at once
            for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    String tid = Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
                    System.out.println("thread " + Thread.currentThread().getName() + " tid=" + tid + " cpus=" + line.substring(18).strip());
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
