package io.qv4j.agent.report;

import io.qv4j.agent.config.Options;
import io.qv4j.agent.load.NumaMemory;
import io.qv4j.agent.log.Log;
import io.qv4j.agent.place.Env;
import io.qv4j.agent.place.Placer;
import io.qv4j.agent.place.Pool;
import io.qv4j.agent.place.PoolRegistry;
import io.qv4j.agent.place.Rebalancer;
import io.qv4j.agent.place.Worker;
import io.qv4j.split.Slots;
import io.qv4j.topology.CpuKind;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.Topology;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The JSON report ({@code report=FILE}, docs/options.md, key report): the agent's settings, then every pool with its slots and threads. */
public final class PlacementReport {

    private PlacementReport() {
    }

    /** Pools, threads, slots and cpusets as JSON-ready maps; {@code rebalancer} may be null. */
    public static Map<String, Object> snapshot(Placer placer, Rebalancer rebalancer, String c2Directive) {
        Options options = placer.options();
        Env e = placer.env();
        Topology topology = e == null ? null : e.topology();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("time", System.currentTimeMillis());
        Map<String, Object> agent = new LinkedHashMap<>();
        agent.put("bind", options.bind().word());
        agent.put("policy", options.policy().toString());
        agent.put("commonPool", options.commonPool());
        agent.put("pools", options.pools());
        agent.put("topology", topology == null ? null : topology.source());
        agent.put("jvmScope", e == null || e.jvm() == null ? null : e.jvm().toString());
        agent.put("jvmMemory", placer.jvmMemory());
        agent.put("isolated", topology == null || topology.isolated().isEmpty() ? null : topology.isolated().toString());
        agent.put("poolScope", e == null || e.jvm() == null || e.ordinary().equals(e.jvm()) ? null : e.ordinary().toString());
        agent.put("exclusive", e == null || e.exclusive().isEmpty() ? null : e.exclusive().toString());
        agent.put("rest", e == null || e.exclusive().isEmpty() ? null : e.rest().toString());
        agent.put("exclusiveVmThreads", options.vmThreads().word());
        agent.put("allowedChange", placer.registry().allowedChange());
        agent.put("binder", e == null ? null : e.binder().describe());
        agent.put("problem", e == null ? "not ready" : e.problem());
        agent.put("node", e == null || e.node() == null ? null : e.node().report());
        agent.put("numa", placer.numaAdvice());
        agent.put("cpukinds", topology == null ? null : cpuKinds(topology));
        agent.put("c2Directive", c2Directive);
        out.put("agent", agent);
        List<Map<String, Object>> list = new ArrayList<>();
        PoolRegistry registry = placer.registry();
        List<Pool> pools = new ArrayList<>();
        registry.read(() -> {
            for (Pool p : registry.pools()) {
                list.add(pool(p, options, topology));
                pools.add(p);
            }
        });
        // after the registry's lock: a pool's count takes the pool's own lock, which a thread may
        // hold while it waits for the registry (a ThreadPoolExecutor's terminated() that makes a pool)
        for (int i = 0; i < pools.size(); i++) {
            long done = pools.get(i).completedTasks();
            list.get(i).put("completedTasks", done < 0 ? null : done);
        }
        out.put("pools", list);
        if (rebalancer != null) out.put("rebalance", rebalancer.report());
        if (placer.neighbours() != null) out.put("neighbours", placer.neighbours().report());
        return out;
    }

    /**
     * The report written at exit: the snapshot with the JVM's resident memory by NUMA node and the
     * measured memory advice (DESIGN.md §7.3), which is also said in one line. Read from
     * {@code numa_maps} once, here: the user asked for the report, and the whole run's memory is in place.
     */
    public static Map<String, Object> atExit(Placer placer, Rebalancer rebalancer, String c2Directive) {
        Map<String, Object> out = snapshot(placer, rebalancer, c2Directive);
        List<Object> memory = NodeMemory.of(NumaMemory.of(ProcessHandle.current().pid()));
        String advice = NodeMemory.advice(out, memory);
        out.put("memory", memory);
        out.put("memoryAdvice", advice);
        if (advice != null) Log.info(advice);
        return out;
    }

    /** The machine's CPU kinds, {@code [{"efficiency": 0, "cpus": "12-19"}, ...]} in hwloc's order. */
    private static List<Object> cpuKinds(Topology topology) {
        List<Object> out = new ArrayList<>();
        for (CpuKind k : topology.cpuKinds()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("efficiency", k.efficiency());
            m.put("cpus", k.cpus().toString());
            out.add(m);
        }
        return out;
    }

    private static Map<String, Object> pool(Pool p, Options options, Topology topology) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", p.id());
        m.put("name", p.name());
        m.put("class", p.type());
        m.put("origin", p.origin());
        m.put("creator", p.creator());
        m.put("pinned", p.pinned());
        m.put("reason", p.reason());
        m.put("policy", p.decided() && p.pinned() ? (p.policy() == null ? options.policy() : p.policy().resolve(options.policy())).toString() : null);
        m.put("rule", p.rule());
        m.put("tasks", p.decided() ? p.tasks() : null);
        m.put("universe", p.universe());
        m.put("scope", p.scope() == null ? null : p.scope().toString());
        m.put("parent", p.parent() == null ? null : p.parent().toString());
        m.put("exclusive", p.exclusive());
        m.put("memory", p.decided() && p.pinned() ? p.memory().name().toLowerCase(java.util.Locale.ROOT) : null);
        m.put("sharesPus", p.sharesPus());
        m.put("oversubscribed", p.oversubscribed());
        m.put("released", p.released());
        m.put("started", p.started());
        m.put("completedTasks", null); // filled in after the registry's lock (snapshot)
        List<Object> slots = new ArrayList<>();
        Slots s = p.slots();
        if (s != null) {
            for (int i = 0; i < s.size(); i++) {
                CpuSet piece = s.piece(i);
                Object owner = s.owner(i);
                Map<String, Object> slot = new LinkedHashMap<>();
                slot.put("slot", i);
                slot.put("cpuset", piece == null ? null : piece.toString());
                slot.put("piece", piece == null ? null : label(topology, piece));
                slot.put("numa", piece == null || topology == null ? null : numaNodes(topology, piece));
                slot.put("thread", owner instanceof Thread t ? t.getName() : null);
                slots.add(slot);
            }
        }
        m.put("slots", slots);
        List<Object> threads = new ArrayList<>();
        for (Worker w : p.workers()) {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("name", w.name());
            t.put("tid", w.tid());
            t.put("slot", w.slot());
            t.put("cpuset", w.cpuset() == null ? null : w.cpuset().toString());
            t.put("piece", w.piece());
            t.put("bound", w.bound());
            t.put("exited", w.exited());
            t.put("startMicros", w.startNanos() < 0 ? null : w.startNanos() / 1000.0);
            if (w.rebinds() > 0) t.put("rebinds", w.rebinds());
            if (w.moves() > 0) t.put("moves", w.moves());
            if (w.waited() >= 0) t.put("waited", Math.round(w.waited() * 1000) / 1000.0);
            if (w.memoryNodes() != null) t.put("memoryNodes", w.memoryNodes().toString());
            threads.add(t);
        }
        m.put("threads", threads);
        return m;
    }

    /** The OS indexes of the NUMA nodes a piece's PUs belong to. */
    private static List<Integer> numaNodes(Topology t, CpuSet cpus) {
        List<Integer> out = new ArrayList<>();
        for (HwObject n : t.numaNodes()) if (n.cpuset().intersects(cpus)) out.add(n.osIndex());
        return out;
    }

    private static String label(Topology t, CpuSet cpus) {
        return t == null ? "pus " + cpus : t.label(cpus);
    }
}
