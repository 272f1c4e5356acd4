package com.example.placement;

import io.qv4j.api.Placement;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A pool made under {@code @Placement(split = 2, ordinal = 1)}: its worker belongs on the second
 * half of the PUs this JVM may use. Reads where the kernel lets the worker run and exits non-zero
 * when that is not inside the second half.
 */
public final class PlacementApp {

    public static void main(String[] args) throws Exception {
        TreeSet<Integer> allowed = cpusOfThisThread();
        ExecutorService pool = secondHalf();
        TreeSet<Integer> worker = pool.submit(PlacementApp::cpusOfThisThread).get(30, TimeUnit.SECONDS);
        pool.shutdown();
        System.out.println("allowed " + allowed + ", worker " + worker);
        if (allowed.size() < 2) {
            // one PU cannot be split in two: nothing to narrow, nothing to check beyond running
            System.out.println("one PU allowed: the worker can only run there");
            return;
        }
        // the lowest PU comes first in logical order, so it lies in the first half, never the second
        if (worker.isEmpty() || !allowed.containsAll(worker) || worker.contains(allowed.first())) {
            System.err.println("the worker is not on the second half of " + allowed + ": " + worker);
            System.exit(1);
        }
        System.out.println("pinned by @Placement");
    }

    @Placement(split = 2, ordinal = 1)
    static ExecutorService secondHalf() {
        return Executors.newSingleThreadExecutor();
    }

    /** The calling thread's allowed PUs, as the kernel reports them. */
    static TreeSet<Integer> cpusOfThisThread() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) return cpulist(line.substring(line.indexOf(':') + 1).trim());
        }
        throw new IllegalStateException("no Cpus_allowed_list in /proc/thread-self/status");
    }

    static TreeSet<Integer> cpulist(String list) {
        TreeSet<Integer> cpus = new TreeSet<>();
        for (String range : list.split(",")) {
            String[] ends = range.split("-");
            int from = Integer.parseInt(ends[0]);
            int to = Integer.parseInt(ends[ends.length - 1]);
            for (int cpu = from; cpu <= to; cpu++) cpus.add(cpu);
        }
        return cpus;
    }
}
