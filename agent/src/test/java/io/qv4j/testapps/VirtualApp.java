package io.qv4j.testapps;

import io.qv4j.api.Binding;
import io.qv4j.api.Platform;
import io.qv4j.api.Scope;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;

import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * 10,000 virtual threads (JDK 21+, made by reflection: this compiles for 17), each computing a sum
 * of squares; every tenth does it inside {@code Scope.bind()} on the first allowed PU. Prints
 * {@code ok COUNT} (right results) and, for every carrier thread of the virtual-thread scheduler
 * (kernel view), {@code carrier COMM-TID tid=TID cpus=LIST}.
 */
public final class VirtualApp {

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        Topology t = Platform.current().discover();
        Scope first = Scope.of(t, CpuSet.parse(String.valueOf(t.allowed().toArray()[0])));
        List<Future<Long>> results = new ArrayList<>();
        ExecutorService vts = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        {
            for (int i = 0; i < n; i++) {
                final int k = i;
                results.add(vts.submit(() -> {
                    if (k % 10 != 0) return squares(k);
                    try (Binding b = first.bind()) {
                        Thread.yield();
                        return squares(k);
                    }
                }));
            }
            int ok = 0;
            for (int i = 0; i < n; i++) if (results.get(i).get() == expected(i)) ok++;
            System.out.println("ok " + ok);
            vts.shutdown();
        }
        try (var s = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) s::iterator) {
                try {
                    String comm = Files.readString(task.resolve("comm")).strip();
                    if (!comm.startsWith("ForkJoinPool")) continue;
                    String cpus = "?";
                    for (String l : Files.readAllLines(task.resolve("status"))) {
                        if (l.startsWith("Cpus_allowed_list:")) cpus = l.substring(l.indexOf(':') + 1).strip();
                    }
                    System.out.println("carrier " + comm + "-" + task.getFileName() + " tid=" + task.getFileName() + " cpus=" + cpus);
                } catch (NoSuchFileException ended) {
                    // a thread that ended since the listing
                }
            }
        }
    }

    static long squares(int k) {
        long s = 0;
        for (int i = 0; i <= k % 1000; i++) s += (long) i * i;
        return s;
    }

    static long expected(int k) {
        long m = k % 1000;
        return m * (m + 1) * (2 * m + 1) / 6;
    }
}
