package io.qv4j.agent.node;

import io.qv4j.agent.bind.Binder;
import io.qv4j.agent.bind.NativeAffinity;
import io.qv4j.agent.boot.AgentThread;
import io.qv4j.agent.log.Log;
import io.qv4j.topology.CpuSet;

import java.io.File;
import java.util.HashSet;
import java.util.Set;

/**
 * Applies the JVM scope to the whole process: every task in {@code /proc/self/task} (main, GC,
 * JIT, the agent's own threads) whose affinity is not already inside the scope is bound to it,
 * by kernel tid through the agent's JNI library. New threads inherit their creator's affinity, so
 * passes repeat until one finds no new task; a thread created by a thread that is bound
 * elsewhere (an application thread that pinned itself outside the scope) escapes, which is what
 * the late {@link #resweepLater} pass is for. Threads already inside the scope (pool workers the
 * agent pinned to a part of it) are never touched.
 */
public final class ProcessAffinity {

    private final CpuSet scope;
    private final Set<Integer> seen = new HashSet<>();
    private int bound;
    private int failed;

    public ProcessAffinity(CpuSet scope) {
        this.scope = scope;
    }

    /** Binds every task until a pass finds none new; returns how many tasks were bound. */
    public synchronized int sweepAll() {
        for (int pass = 0; pass < 10; pass++) {
            if (sweep() == 0) break;
        }
        return bound;
    }

    /** One pass over the tasks not seen before; returns how many new tasks it saw. */
    synchronized int sweep() {
        String[] tasks = new File("/proc/self/task").list();
        if (tasks == null) return 0;
        int fresh = 0;
        for (String name : tasks) {
            int tid;
            try {
                tid = Integer.parseInt(name);
            } catch (NumberFormatException e) {
                continue;
            }
            if (!seen.add(tid)) continue;
            fresh++;
            CpuSet now = NativeAffinity.affinity(tid);
            if (now != null && scope.containsAll(now)) continue;
            int rc = NativeAffinity.setAffinity(tid, scope);
            if (rc == 0) bound++;
            else if (rc != 3) failed++; // ESRCH: the thread ended meanwhile
        }
        if (failed > 0) Log.once("sweepfail", "could not bind " + failed + " of this JVM's threads to the JVM scope " + scope);
        return fresh;
    }

    /** One more pass after {@code millis}, on a daemon thread, for threads made meanwhile by threads bound elsewhere. */
    public void resweepLater(long millis) {
        new AgentThread("qv-resweep", new Runnable() {
            @Override
            public void run() {
                try {
                    Thread.sleep(millis);
                    sweepAll();
                } catch (Throwable ignored) {
                    // best effort
                }
            }
        }).start();
    }

    public synchronized int bound() {
        return bound;
    }

    /**
     * The process's allowed set now: the main thread's mask (the pid's, which {@code taskset -p}
     * and {@code /proc/self/status} show); null when it cannot be read.
     */
    public static CpuSet processMask() {
        return mask(LockTable.ownPid());
    }

    /**
     * Whether every task of the process other than {@code skip} (tids: workers qv4j placed, which
     * it may have bound since) runs inside {@code set} now: the process as a whole was narrowed,
     * not one thread that the application bound (its main thread, say).
     */
    public static boolean allInside(CpuSet set, Set<Long> skip) {
        String[] tasks = new File("/proc/self/task").list();
        if (tasks == null) return false;
        for (String name : tasks) {
            long tid;
            try {
                tid = Long.parseLong(name);
            } catch (NumberFormatException e) {
                continue;
            }
            if (skip.contains(tid)) continue;
            CpuSet now = mask(tid);
            if (now != null && !set.containsAll(now)) return false; // null: the thread ended meanwhile
        }
        return true;
    }

    /** Task {@code tid}'s kernel mask: through the JNI library when loaded, else from /proc; null when unknown. */
    static CpuSet mask(long tid) {
        return tid <= 0 || tid > Integer.MAX_VALUE ? null : Binder.mask(tid);
    }
}
