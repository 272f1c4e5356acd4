package io.qv4j.agent.place;

import io.qv4j.agent.bind.Binder;
import io.qv4j.agent.config.Options;
import io.qv4j.agent.io.UserFiles;
import io.qv4j.agent.log.Log;
import io.qv4j.agent.node.Claims;
import io.qv4j.split.Slots;
import io.qv4j.topology.CpuSet;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Exclusive cores at run time (DESIGN.md §7.2): a pool asking for them gets the units
 * {@link ExclusiveCores} chooses, claimed node-wide ({@link #plan}); then the other pools that used
 * them are planned again without them and their workers moved by kernel thread id, and every
 * other thread of the process whose mask reaches them (the main thread, plain threads, the
 * agent's own; the JVM's GC, JIT and VM threads too with {@code exclusive-vm-threads=apart}, the
 * default; not the process's first thread, which only waits and whose mask is the process's) is
 * narrowed to what is left of its mask, or to the rest of the JVM. Threads that start later are
 * kept off at their start ({@link ApplicationBound#unconfine}). When the pool ends, its cores go
 * back: the threads narrowed here get their masks back.
 */
final class ExclusiveRoom {

    /**
     * The JVM's own threads, by the names HotSpot gives them (the kernel keeps 15 characters):
     * with {@code exclusive-vm-threads=share} they keep their masks. A name not here counts as the
     * application's, which errs towards keeping a core quiet.
     */
    private static final String[] VM_THREADS = {"VM Thread", "VM Periodic Tas", "GC Thread#", "G1 ", "C1 CompilerThre",
        "C2 CompilerThre", "Sweeper thread", "Service Thread", "Monitor Deflati", "Notification Th", "Signal Dispatch",
        "Reference Handl", "Finalizer", "Common-Cleaner", "Attach Listener", "ZWorker", "ZDirector", "ZDriver", "ZStat",
        "ZUnmapper", "ZRuntimeWorker", "Shenandoah", "JFR "};

    private final Placer placer;
    private final Options.VmThreads vmThreads;
    /** Pools planned again off exclusive PUs: planned again when PUs are given back. Under the registry's lock. */
    private final Map<Pool, Boolean> squeezed = new java.util.IdentityHashMap<>();
    /** Threads narrowed here, by tid: the mask each had, and the one it was given. Guarded by this. */
    private final Map<Long, CpuSet[]> narrowed = new HashMap<>();

    ExclusiveRoom(Placer placer, Options.VmThreads vmThreads) {
        this.placer = placer;
        this.vmThreads = vmThreads;
    }

    /**
     * Under the registry's lock: cores of its own for each worker of {@code p} ({@link ExclusiveCores}), claimed node-wide like any pool's
     * PUs, again without those another JVM took meanwhile; false (the reason said once) where
     * they cannot be had: then the pool is planned as without the word.
     */
    boolean plan(Pool p, Env e) {
        Claims node = e.node() == null ? null : e.node().claims();
        CpuSet claimed = PoolPlanner.othersClaim(e, e.jvm());
        for (int attempt = 0; ; attempt++) {
            ExclusiveCores.Choice c = ExclusiveCores.choose(e.topology(), e.jvm(), claimed, placer.planner().exclusive(p), placer.planner().held(p), p.tasks);
            if (c.refused() != null) {
                p.reason += ", exclusive refused: " + c.refused();
                Log.once("exclusive:" + p.name, "pool " + p.name + ": exclusive=true refused: " + c.refused() + "; its workers are placed as without it");
                return false;
            }
            CpuSet union = c.union();
            CpuSet lost = node == null ? CpuSet.empty() : node.claim(union);
            if (!lost.isEmpty() && attempt <= e.jvm().cardinality()) {
                node.release(union.andNot(lost));
                claimed = claimed.or(lost);
                continue;
            }
            p.exclusive = true;
            p.slots = new Slots(c.units());
            p.scope = union;
            p.universe = union;
            p.shares = false;
            p.oversubscribed = false;
            p.released = false;
            p.reason += ", exclusive: " + (p.tasks == 1 ? "a core" : p.tasks + " cores") + " of its own (pus " + union + ")";
            return true;
        }
    }

    /**
     * The JVM's exclusive PUs changed to what its pools hold now: the environment says so; every
     * other pinned pool on them is planned again without them, and when they shrank, every pool
     * planned off them before is planned again on what is free now (its workers move at once, by
     * {@link #moveNow}). Under the registry's lock; returns the environment now.
     */
    Env changed(Env e) {
        PoolPlanner planner = placer.planner();
        Env now = e.withExclusive(planner.exclusive(null));
        placer.exclusive(now);
        boolean shrank = !now.exclusive().containsAll(e.exclusive());
        for (Pool o : placer.registry().pools()) {
            if (o.exclusive || !o.planned || !o.pinned || o.scope == null) continue;
            boolean on = o.scope.intersects(now.exclusive());
            if (!on && !(shrank && squeezed.containsKey(o))) continue;
            o.planned = false;
            o.slots = null;
            o.scope = null;
            planner.syncClaims(now);
            planner.plan(o, now);
            o.reason += on ? ", planned again off the exclusive pus " + now.exclusive() : ", planned again: exclusive pus given back";
            if (on) squeezed.put(o, Boolean.TRUE);
            else squeezed.remove(o);
            if (o.pinned) planner.moveWorkers(o, false);
        }
        squeezed.keySet().removeIf(Pool::gone);
        return now;
    }

    /**
     * Outside the lock: the workers {@link #changed} planned again go to their new pieces at once,
     * by kernel thread id (a CPU-bound task may never reach its next one).
     */
    private Workers moveNow(Env e) {
        Map<Long, CpuSet> moved = new HashMap<>();
        PoolRegistry registry = placer.registry();
        synchronized (registry.lock) {
            for (Map.Entry<Thread, Worker> x : registry.liveWorkers().entrySet()) {
                Worker w = x.getValue();
                if (w.exited || w.tid <= 0 || w.pool.exclusive) continue;
                CpuSet to = registry.moves.get(x.getKey());
                if (to == null) continue;
                w.cpuset = to; // it binds itself again at its next task, to answer the processor count
                w.topology = e.topology();
                moved.put(w.tid, to);
            }
        }
        for (Map.Entry<Long, CpuSet> m : moved.entrySet()) e.binder().bindThread(m.getKey(), m.getValue());
        return new Workers(exclusiveWorkers(), moved);
    }

    /** The exclusive pools' workers that have a tid, by tid, with their cores. */
    private Map<Long, CpuSet> exclusiveWorkers() {
        Map<Long, CpuSet> out = new HashMap<>();
        synchronized (placer.registry().lock) {
            for (Worker w : placer.registry().liveWorkers().values()) {
                if (!w.exited && w.tid > 0 && w.pool.exclusive && w.cpuset != null) out.put(w.tid, w.cpuset);
            }
        }
        return out;
    }

    /** Exclusive workers and the workers {@link #moveNow} moved, by tid, with their pieces: the walk leaves them alone. */
    private record Workers(Map<Long, CpuSet> exclusive, Map<Long, CpuSet> moved) {

        boolean contains(long tid) {
            return exclusive.containsKey(tid) || moved.containsKey(tid);
        }
    }

    /**
     * Outside the lock: the workers {@link #changed} moved go to their new pieces, then every other
     * thread whose mask reaches the exclusive PUs is narrowed. An exclusive worker that bound itself
     * while this ran is put back on its core at the end.
     */
    void keepOff() {
        Env e = placer.env();
        if (e == null || e.exclusive().isEmpty()) return;
        CpuSet cores = e.exclusive();
        Workers workers = moveNow(e);
        if (!e.live()) return; // a dry run's or a test's topology: this process's threads are not on it
        int n = 0;
        long pid = ProcessHandle.current().pid();
        for (long tid : tids()) {
            // the process's first thread only waits for the JVM to end (the java launcher joins main
            // on it); its mask is the process's, which taskset shows and AllowedSet follows
            if (tid == pid || workers.contains(tid)) continue;
            if (vmThreads == Options.VmThreads.SHARE && vmThread(tid)) continue;
            CpuSet mask = Binder.mask(tid);
            if (mask == null || !mask.intersects(cores)) continue;
            CpuSet to = mask.andNot(cores);
            if (to.isEmpty()) to = e.rest();
            if (e.binder().bindThread(tid, to)) {
                n++;
                synchronized (this) {
                    CpuSet[] was = narrowed.get(tid);
                    narrowed.put(tid, new CpuSet[] {was == null ? mask : was[0], to});
                }
            }
        }
        // Asked again, not taken from the start: a worker of the pool that took its tid and bound
        // itself while the walk ran (its slot taken, its tid not yet) was narrowed as any other thread.
        for (Map.Entry<Long, CpuSet> w : exclusiveWorkers().entrySet()) {
            CpuSet mask = Binder.mask(w.getKey());
            if (mask != null && !mask.equals(w.getValue()) && e.binder().bindThread(w.getKey(), w.getValue())) {
                synchronized (this) {
                    if (narrowed.remove(w.getKey()) != null) n--;
                }
            }
        }
        if (n > 0) Log.debug("exclusive pus " + cores + ": " + n + " other threads of this JVM moved off them (exclusive-vm-threads=" + vmThreads.word() + ")");
    }

    /**
     * Outside the lock, after {@link #changed} gave exclusive PUs back: the pools planned again move
     * at once, and the threads narrowed here get back their masks (within the JVM scope, less the
     * exclusive PUs left), where nobody changed them since.
     */
    void giveBack() {
        Env e = placer.env();
        if (e == null) return;
        moveNow(e);
        Map<Long, CpuSet[]> all;
        synchronized (this) {
            all = new HashMap<>(narrowed);
            narrowed.clear();
        }
        for (Map.Entry<Long, CpuSet[]> x : all.entrySet()) {
            CpuSet now = Binder.mask(x.getKey());
            if (now == null || !now.equals(x.getValue()[1])) continue; // gone, or moved by someone else since
            CpuSet back = x.getValue()[0].and(e.jvm()).andNot(e.exclusive());
            if (!back.isEmpty()) e.binder().bindThread(x.getKey(), back);
        }
    }

    /** Whether thread {@code tid} is one of the JVM's own ({@link #VM_THREADS}). */
    static boolean vmThread(long tid) {
        // java.io, not a file channel: the calling thread may be an application's, with an interrupt pending
        byte[] comm = UserFiles.proc("/proc/self/task/" + tid + "/comm");
        return comm != null && vmThreadName(new String(comm, StandardCharsets.ISO_8859_1).strip());
    }

    static boolean vmThreadName(String comm) {
        for (String prefix : VM_THREADS) if (comm.startsWith(prefix)) return true;
        return false;
    }

    /** This process's kernel thread ids now. */
    private static List<Long> tids() {
        List<Long> out = new ArrayList<>();
        String[] names = new java.io.File("/proc/self/task").list();
        if (names == null) return out;
        for (String name : names) {
            try {
                out.add(Long.parseLong(name));
            } catch (NumberFormatException notATask) {
                // not a thread
            }
        }
        return out;
    }
}
