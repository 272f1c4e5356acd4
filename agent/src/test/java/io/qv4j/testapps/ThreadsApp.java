package io.qv4j.testapps;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Plain platform threads for the thread-group tests: {@code pipe-1}, {@code pipe-2}, a thread that
 * overrides nothing and has no rule ({@code Thread-N}, printed as {@code unnamed}) and a subclass
 * of Thread named {@code own-1} that overrides run() without calling super.run(). Each prints
 * {@code thread NAME tid=TID cpus=LIST} from its own /proc/thread-self/status.
 */
public final class ThreadsApp {

    private static final Map<String, String> SEEN = new ConcurrentHashMap<>();

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("many")) {
            many(Integer.parseInt(args[1]));
            return;
        }
        List<Thread> ts = new ArrayList<>();
        ts.add(new Thread(() -> record("pipe-1"), "pipe-1"));
        ts.add(new Thread(() -> record("pipe-2"), "pipe-2"));
        ts.add(new Thread(() -> record("unnamed")));
        ts.add(new Own("own-1"));
        for (Thread t : ts) t.start();
        for (Thread t : ts) t.join();
        for (String line : new TreeMap<>(SEEN).values()) System.out.println(line);
    }

    /** {@code loop-1} .. {@code loop-N}, each recording its mask once all have started (a group that grew moved the first ones since). */
    static void many(int n) throws Exception {
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(n);
        List<Thread> ts = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            String name = "loop-" + i;
            ts.add(new Thread(() -> {
                started.countDown();
                try {
                    started.await();
                } catch (InterruptedException e) {
                    return;
                }
                record(name);
            }, name));
        }
        for (Thread t : ts) t.start();
        for (Thread t : ts) t.join();
        for (String line : new TreeMap<>(SEEN).values()) System.out.println(line);
    }

    /** Never reaches Thread.run(): only JVMTI's thread events see it start. */
    static final class Own extends Thread {
        Own(String name) {
            super(name);
        }

        @Override
        public void run() {
            record(getName());
        }
    }

    static void record(String as) {
        SEEN.put(as, line(as));
    }

    /** {@code thread AS tid=TID cpus=LIST}, read on the calling thread. */
    static String line(String as) {
        try {
            String cpus = "?";
            for (String l : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                if (l.startsWith("Cpus_allowed_list:")) cpus = l.substring(l.indexOf(':') + 1).strip();
            }
            String tid = Path.of("/proc/thread-self").toRealPath().getFileName().toString();
            return "thread " + as + " tid=" + tid + " cpus=" + cpus;
        } catch (Exception e) {
            return "thread " + as + " tid=0 cpus=error:" + e.getClass().getSimpleName();
        }
    }
}
