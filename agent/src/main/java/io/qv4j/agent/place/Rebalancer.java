package io.qv4j.agent.place;

import io.qv4j.agent.boot.AgentThread;
import io.qv4j.agent.log.Log;
import io.qv4j.agent.config.RebalanceOptions;
import io.qv4j.api.Scope;
import io.qv4j.topology.CpuSet;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * Load-proportional placement ({@code rebalance=DURATION}). A daemon thread,
 * {@code qv-rebalance} (the agent's own, never pinned), wakes every period and measures each
 * pinned pool's CPU time over the period ({@link ThreadMXBean#getThreadCpuTime} of its live
 * workers). When at least two pinned pools have live workers and their PU shares differ from their
 * load shares by more than the threshold in two periods in a row, it re-splits the JVM scope among them with
 * {@link Scope#splitWeighted} (contiguous pieces in pool creation order, every pool at least one
 * unit), re-plans each pool's slots within its new piece by the pool's own policy (its rule or
 * annotation over the options, {@link PoolPlanner#replan}), brings the node-wide claims up to date,
 * and records the workers whose cpuset changed. Those workers rebind on their own thread at their
 * next {@code getTask} (the per-task catch-up flag is switched on until all have moved).
 *
 * <p>Only {@link ThreadPoolExecutor} pools with slots take part: they are the pools with a per-task
 * hook. Fork/join and unbounded pools keep their place. Nothing here throws into application code:
 * the thread catches everything, and a failing period is logged once and skipped.
 */
public final class Rebalancer implements Runnable {

    /** Below this fraction of one PU-period in total, the loads are noise: no decision. */
    static final double MIN_LOAD = 0.05;

    private final Placer placer;
    private final RebalanceOptions options;
    private final ThreadMXBean mx;
    private final long t0 = System.nanoTime();
    private Map<Thread, Long> last = new HashMap<>();
    private final List<Map<String, Object>> history = new ArrayList<>();
    private int periods;
    private boolean imbalancedBefore;

    Rebalancer(Placer placer, RebalanceOptions options, ThreadMXBean mx) {
        this.placer = placer;
        this.options = options;
        this.mx = mx;
    }

    /** Starts the {@code qv-rebalance} thread; null when CPU time cannot be measured. */
    public static Rebalancer start(Placer placer, RebalanceOptions options) {
        try {
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            if (!mx.isThreadCpuTimeSupported()) {
                Log.info("rebalance: per-thread CPU time is not supported by this JVM: rebalancing is off");
                return null;
            }
            if (!mx.isThreadCpuTimeEnabled()) mx.setThreadCpuTimeEnabled(true);
            Rebalancer r = new Rebalancer(placer, options, mx);
            new AgentThread("qv-rebalance", r).start();
            return r;
        } catch (Throwable t) {
            Log.info("rebalance: cannot start (" + t + "): rebalancing is off");
            return null;
        }
    }

    @Override
    public void run() {
        while (true) {
            try {
                Thread.sleep(options.periodMillis());
            } catch (InterruptedException e) {
                return;
            }
            try {
                period();
            } catch (Throwable t) {
                Log.once("rebalance:" + t.getClass().getName(), "rebalance: a period failed (" + t + "); trying again next period");
            }
        }
    }

    // ---- the decision (pure) ------------------------------------------------------------------

    /**
     * Whether to re-split, and by which weights.
     *
     * @param loads     each pool's CPU time over the period (any unit, ≥ 0)
     * @param shares    each pool's current share of the PUs (fractions; need not sum to exactly 1)
     * @param threshold the hysteresis: re-split only when some pool's |share − load share| exceeds it
     * @return each pool's load share (the weights of the new split), or null: keep the current split
     */
    public static double[] decide(double[] loads, double[] shares, double threshold) {
        if (loads.length != shares.length) throw new IllegalArgumentException(loads.length + " loads, " + shares.length + " shares");
        if (loads.length < 2) return null;
        double total = 0;
        for (double l : loads) total += Math.max(0, l);
        if (!(total > 0) || !Double.isFinite(total)) return null;
        double[] want = new double[loads.length];
        double imbalance = 0;
        for (int i = 0; i < loads.length; i++) {
            want[i] = Math.max(0, loads[i]) / total;
            imbalance = Math.max(imbalance, Math.abs(shares[i] - want[i]));
        }
        return imbalance > threshold ? want : null;
    }

    // ---- one period ---------------------------------------------------------------------------

    record Member(Pool pool, List<Thread> workers) {
    }

    void period() {
        Env e = placer.env();
        if (e == null || e.topology() == null) return;
        periods++;
        PoolRegistry registry = placer.registry();
        List<Member> members = new ArrayList<>();
        CpuSet others = CpuSet.empty();
        synchronized (registry.lock) {
            Map<Pool, Member> by = new LinkedHashMap<>();
            for (Pool p : registry.pools()) {
                if (!p.pinned || p.slots == null || p.tasks < 1 || !p.alive() || p.exclusive) continue;
                if (p.ref.get() instanceof ThreadPoolExecutor) by.put(p, new Member(p, new ArrayList<>()));
                else others = others.or(p.scope); // pinned, but cannot move: keep out of its way
            }
            for (Map.Entry<Thread, Worker> t : registry.liveWorkers().entrySet()) {
                Member m = by.get(t.getValue().pool);
                if (m != null && !t.getValue().exited && t.getKey().isAlive()) m.workers.add(t.getKey());
            }
            for (Member m : by.values()) if (!m.workers.isEmpty()) members.add(m);
        }
        // CPU time over the period; a worker first seen now only sets its baseline
        Map<Thread, Long> now = new HashMap<>();
        double[] loads = new double[members.size()];
        for (int i = 0; i < members.size(); i++) {
            for (Thread t : members.get(i).workers) {
                @SuppressWarnings("deprecation")
                long cpu = mx.getThreadCpuTime(t.getId());
                if (cpu < 0) continue;
                now.put(t, cpu);
                Long before = last.get(t);
                if (before != null && cpu >= before) loads[i] += cpu - before;
            }
        }
        boolean measured = !last.isEmpty();
        last = now;
        if (!measured || members.size() < 2) return;
        double total = 0;
        for (double l : loads) total += l;
        if (total < MIN_LOAD * options.periodMillis() * 1e6) return;

        CpuSet universe = e.ordinary();
        if (e.node() != null && e.node().claims() != null) universe = universe.andNot(e.node().claims().others(universe));
        if (universe.andNot(others).cardinality() >= members.size()) universe = universe.andNot(others);
        if (universe.cardinality() < members.size()) return;

        double[] shares = new double[members.size()];
        double sum = 0;
        for (int i = 0; i < members.size(); i++) sum += members.get(i).pool.scope.cardinality();
        for (int i = 0; i < members.size(); i++) shares[i] = members.get(i).pool.scope.cardinality() / sum;
        double[] weights = decide(loads, shares, options.threshold());
        // one period's loads can be noise (a busy host that did not run the pool's threads):
        // re-split only when two periods in a row ask for it
        boolean asked = weights != null;
        boolean again = asked && imbalancedBefore;
        imbalancedBefore = asked;
        if (!again) return;
        imbalancedBefore = false;

        List<Scope> pieces = Scope.of(e.topology(), universe).splitWeighted(weights).pieces();
        apply(members, pieces, e);
        record(members, loads, e);
    }

    /** Re-plans each pool within its piece by its own policy and records which workers move. */
    void apply(List<Member> members, List<Scope> pieces, Env e) {
        PoolRegistry registry = placer.registry();
        synchronized (registry.lock) {
            for (int i = 0; i < members.size(); i++) {
                Pool p = members.get(i).pool;
                placer.planner().replan(p, pieces.get(i).cpuset(), e);
                for (Map.Entry<Thread, Worker> t : registry.liveWorkers().entrySet()) {
                    Worker w = t.getValue();
                    if (w.pool != p || w.exited) continue;
                    CpuSet c = w.slot >= 0 ? p.slots.piece(w.slot) : p.scope;
                    if (!c.equals(w.cpuset)) registry.moves.put(t.getKey(), c);
                    else registry.moves.remove(t.getKey());
                }
            }
            placer.planner().syncClaims(e);
        }
        if (!registry.moves.isEmpty()) placer.requestCatchUp();
    }

    private void record(List<Member> members, double[] loads, Env e) {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("time", java.time.Instant.now().toString());
        h.put("millis", (System.nanoTime() - t0) / 1_000_000);
        h.put("period", periods);
        List<Object> ps = new ArrayList<>();
        StringBuilder line = new StringBuilder("rebalance:");
        double scale = options.periodMillis() * 1e6;
        for (int i = 0; i < members.size(); i++) {
            Pool p = members.get(i).pool;
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", p.id);
            m.put("name", p.name);
            m.put("load", Math.round(loads[i] / scale * 1000) / 1000.0);
            m.put("scope", p.scope.toString());
            m.put("pus", p.scope.cardinality());
            ps.add(m);
            line.append(i == 0 ? " " : ", ").append(p.name).append(" load ")
                    .append(String.format(Locale.ROOT, "%.2f", loads[i] / scale)).append(" PU -> ")
                    .append(e.topology().label(p.scope));
        }
        h.put("pools", ps);
        synchronized (history) {
            if (history.size() >= 100) history.remove(0);
            history.add(h);
        }
        Log.debug(line.toString());
        placer.events().rebalanced(line.toString(), members.size());
    }

    /** The period, threshold and history of re-splits, for the report. */
    public Map<String, Object> report() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("periodMillis", options.periodMillis());
        out.put("threshold", options.threshold());
        synchronized (history) {
            out.put("history", new ArrayList<>(history));
        }
        return out;
    }
}
