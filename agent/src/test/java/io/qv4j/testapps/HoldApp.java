package io.qv4j.testapps;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A JVM that holds one pool worker for {@code args[0]} ms (so that another JVM starts while it
 * runs) and prints {@code thread NAME tid=TID cpus=LIST} for it.
 */
public final class HoldApp {

    public static void main(String[] args) throws Exception {
        long millis = Long.parseLong(args[0]);
        ExecutorService pool = Executors.newFixedThreadPool(1, r -> new Thread(r, "hold-1"));
        pool.submit(() -> {
            try {
                String tid = Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
                for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                    if (line.startsWith("Cpus_allowed_list:")) {
                        System.out.println("thread hold-1 tid=" + tid + " cpus=" + line.substring(18).strip());
                    }
                }
                Thread.sleep(millis);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return null;
        }).get();
        pool.shutdown();
    }
}
