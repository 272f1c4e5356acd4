package io.qv4j.testapps;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A long-running application driven step by step through its standard input, for tests that
 * change the process from outside between steps. Prints {@code ready PID}; then each line
 * {@code pool N} makes a new fixed pool of {@code N} workers (kept alive until the end), each
 * printing {@code thread NAME tid=TID cpus=LIST} from its first task, followed by {@code done};
 * {@code count} gives every worker of every pool one task, which prints {@code count NAME tid=TID
 * n=N cpus=LIST} (N: its {@code availableProcessors()}), then {@code count main n=N} and {@code done}.
 * Ends at end of input.
 */
public final class GrowApp {

    public static void main(String[] args) throws Exception {
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        List<ExecutorService> pools = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            String[] w = line.strip().split(" ");
            if (w.length == 1 && w[0].equals("count")) {
                for (int i = 0; i < pools.size(); i++) {
                    for (String l : onEach(pools.get(i), sizes.get(i), () -> "count " + Thread.currentThread().getName() + " tid=" + PoolApp.tid()
                            + " n=" + Runtime.getRuntime().availableProcessors() + " cpus=" + PoolApp.cpus("/proc/thread-self/status"))) {
                        System.out.println(l);
                    }
                }
                System.out.println("count main n=" + Runtime.getRuntime().availableProcessors());
                System.out.println("done");
                System.out.flush();
                continue;
            }
            if (w.length != 2 || !w[0].equals("pool")) continue;
            int n = Integer.parseInt(w[1]);
            int k = pools.size() + 1;
            ExecutorService pool = Executors.newFixedThreadPool(n, new java.util.concurrent.ThreadFactory() {
                private int i;

                @Override
                public Thread newThread(Runnable r) {
                    return new Thread(r, "grow" + k + "-" + (++i));
                }
            });
            pools.add(pool);
            sizes.add(n);
            for (String l : onEach(pool, n, () -> "thread " + Thread.currentThread().getName() + " tid=" + PoolApp.tid()
                    + " cpus=" + PoolApp.cpus("/proc/thread-self/status"))) {
                System.out.println(l);
            }
            System.out.println("done");
            System.out.flush();
        }
        for (ExecutorService p : pools) p.shutdown();
    }

    /** What {@code line} says on each of the {@code n} workers of {@code pool}: one task each, all started before any ends. */
    private static List<String> onEach(ExecutorService pool, int n, java.util.concurrent.Callable<String> line) throws InterruptedException {
        CountDownLatch all = new CountDownLatch(n);
        List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < n; i++) {
            pool.execute(() -> {
                try {
                    lines.add(line.call());
                } catch (Exception e) {
                    lines.add("error " + e);
                }
                all.countDown();
                try {
                    all.await(); // every worker of the pool takes one before any takes a second
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        all.await();
        return lines;
    }
}
