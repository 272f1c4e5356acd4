package io.qv4j.agent.place;

import io.qv4j.agent.bind.Binder;
import io.qv4j.agent.log.Log;
import io.qv4j.agent.node.Claims;
import io.qv4j.agent.config.Options;
import io.qv4j.agent.annotations.Annotations;
import io.qv4j.agent.config.Policy;
import io.qv4j.agent.config.Rule;
import io.qv4j.agent.config.Rules;
import io.qv4j.topology.HwType;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.Topology;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Pools, slots and placement (DESIGN.md §6.2). Called from the hooks: on the creating thread when a
 * pool is made, on the worker itself when it starts and leaves. Pools are held weakly; per-thread
 * state lives in a map keyed by thread (JDK 25 common-pool workers clear their ThreadLocals).
 * All bookkeeping is under one lock (events are rare: pool creation and worker start/exit); the
 * bind itself runs outside it.
 */
public final class Placer {

    /** Where a pool was made. */
    public enum Origin { APPLICATION, JDK, AGENT, UNKNOWN }

    static final class PoolInfo {
        final int id;
        final WeakReference<Object> ref;
        final String type;
        final Origin origin;
        final Creator creator;
        /** {@code class#method} of the code that made the pool, for rules; null = unknown. */
        String creatorKey;
        /** From an annotation (at creation, or a field assignment), else from the matching rule; null = the options. */
        Policy policy;
        Rule rule;
        String name;
        boolean decided;
        boolean planned;
        boolean pinned;
        String reason;
        int tasks;                 // -1: unbounded
        CpuSet[] slots;            // per slot; null entry = no piece
        Thread[] owners;
        CpuSet scope;              // what threads without a slot get
        String universe;
        boolean shares;
        int started;
        final List<ThreadInfo> threads = new ArrayList<>();

        PoolInfo(int id, Object pool, Origin origin, Creator creator) {
            this.id = id;
            this.ref = new WeakReference<>(pool);
            this.type = pool.getClass().getName();
            this.origin = origin;
            this.creator = creator;
        }

        boolean alive() {
            Object p = ref.get();
            return p != null && !(p instanceof ExecutorService e && e.isShutdown());
        }
    }

    static final class ThreadInfo {
        final String name;
        final PoolInfo pool;
        int slot = -1;
        CpuSet cpuset;
        String label;
        boolean bound;
        boolean exited;
        long tid = -1;
        /** What placing this worker cost on its own thread (bookkeeping + bind), for the report and benchmarks. */
        long startNanos = -1;
        /** How often a rebalance moved it ({@link Rebalancer}). */
        int rebinds;

        ThreadInfo(String name, PoolInfo pool) {
            this.name = name;
            this.pool = pool;
        }
    }

    /** Shut-down pools kept in the registry for the report. */
    static final int DEAD_POOLS_KEPT = 64;

    private final Options options;
    private final Planner planner;
    private final List<Pattern> globs = new ArrayList<>();
    private final CountDownLatch ready = new CountDownLatch(1);
    private volatile Env env;
    private final long waitMillis;
    private final boolean wantTid;

    private final Object lock = new Object();
    private final List<PoolInfo> pools = new ArrayList<>(); // creation order, for planning and the report
    // lookup by pool identity; weak, so a pool the application drops can be collected (pools do
    // not override equals/hashCode). PoolInfo holds its pool only through a WeakReference.
    private final Map<Object, PoolInfo> byPool = new WeakHashMap<>();
    private int pruneAt = 2 * DEAD_POOLS_KEPT;
    private final Map<Thread, ThreadInfo> threads = new IdentityHashMap<>();
    private final Map<Thread, Object> pending = new IdentityHashMap<>();
    private int nextId = 1;
    private volatile Runnable onPending;
    private volatile Rules rules = Rules.none();
    private Map<String, CpuSet> weighted; // rule name -> its share of the JVM scope; under the lock

    public Placer(Options options, Planner planner, long waitMillis) {
        this.options = options;
        this.planner = planner;
        this.waitMillis = waitMillis;
        this.wantTid = options.verbose() || options.report() != null;
        for (String g : options.pools()) globs.add(io.qv4j.agent.config.Rule.glob(g));
    }

    /** The rules of the config file (before any pool is made). */
    public void rules(Rules r) {
        rules = r;
    }

    /** The environment is known: placement may begin. */
    public void ready(Env e) {
        env = e;
        ready.countDown();
    }

    public Env env() {
        return env;
    }

    /** Called when a worker had to start before the environment was ready: turn on the per-task catch-up. */
    public void onPending(Runnable r) {
        onPending = r;
    }

    // ---- pool creation ------------------------------------------------------------------------

    /** A pool constructor finished (may be called once per delegating constructor). */
    public void poolCreated(Object pool) {
        synchronized (lock) {
            if (find(pool) != null) return;
        }
        Creator creator = creator(pool);
        Origin origin = originOf(creator.className());
        Policy annotated = Annotations.current();
        Annotations.created(pool);
        synchronized (lock) {
            if (find(pool) != null) return;
            PoolInfo p = new PoolInfo(nextId++, pool, origin, creator);
            p.creatorKey = creator.key();
            p.policy = annotated;
            add(p, pool);
        }
    }

    /** The pool was assigned to a {@code @Placement} field: that policy wins, if its workers have not started. */
    public void annotate(Object pool, Policy policy) {
        synchronized (lock) {
            PoolInfo p = register(pool);
            if (p.decided) {
                Log.debug("pool " + p.name + ": " + policy.source() + " comes after its workers started: ignored");
                return;
            }
            p.policy = policy;
        }
    }

    static Origin originOf(String cls) {
        if (cls == null) return Origin.UNKNOWN;
        if (isAgentClass(cls)) return Origin.AGENT;
        if (cls.startsWith("java.") || cls.startsWith("jdk.") || cls.startsWith("sun.") || cls.startsWith("com.sun.")) return Origin.JDK;
        return Origin.APPLICATION;
    }

    /** The agent's own code (not the tests' applications under io.qv4j.agent.it). */
    static boolean isAgentClass(String cls) {
        for (String p : AGENT_PACKAGES) if (cls.startsWith(p)) return true;
        return false;
    }

    private static final String[] AGENT_PACKAGES = {"io.qv4j.agent.place.", "io.qv4j.agent.inst.", "io.qv4j.agent.bind.",
        "io.qv4j.agent.log.", "io.qv4j.agent.config.", "io.qv4j.agent.boot.", "io.qv4j.agent.cli.", "io.qv4j.agent.QvAgent",
        "io.qv4j.shaded."};

    /** The frame that made the pool: above the hooks, the pool's own constructors and Executors. */
    /**
     * Where a pool was made: the first frame below the hook, the pool's own constructors and
     * {@code Executors}. File and line are resolved only when a report or a verbose line asks:
     * resolving them costs more than the walk.
     */
    record Creator(String className, String key, StackWalker.StackFrame frame, String fixed) {

        static final Creator UNKNOWN = new Creator(null, null, null, "?");
        static final Creator UNKNOWN_BEFORE_AGENT = new Creator(null, null, null, "? (made before the agent started)");

        String text() {
            return frame == null ? fixed
                    : className + "." + frame.getMethodName() + "(" + frame.getFileName() + ":" + frame.getLineNumber() + ")";
        }
    }

    static Creator creator(Object pool) {
        try {
            StackWalker w = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
            StackWalker.StackFrame fr = w.walk(new java.util.function.Function<java.util.stream.Stream<StackWalker.StackFrame>, StackWalker.StackFrame>() {
                @Override
                public StackWalker.StackFrame apply(java.util.stream.Stream<StackWalker.StackFrame> s) {
                    boolean above = true;
                    for (Iterator<StackWalker.StackFrame> it = s.iterator(); it.hasNext(); ) {
                        StackWalker.StackFrame f = it.next();
                        String c = f.getClassName();
                        if (above && (c.startsWith("io.qv4j.agent.place.") || c.startsWith("io.qv4j.agent.inst.")
                                || c.equals("java.util.concurrent.QvHooks"))) continue;
                        above = false;
                        if ((f.getMethodName().equals("<init>") && f.getDeclaringClass().isInstance(pool))
                                || c.startsWith("java.util.concurrent.Executors")) continue;
                        return f;
                    }
                    return null;
                }
            });
            return fr == null ? Creator.UNKNOWN : new Creator(fr.getClassName(), fr.getClassName() + "#" + fr.getMethodName(), fr, null);
        } catch (Throwable t) {
            return Creator.UNKNOWN;
        }
    }

    /** Under the lock. */
    private PoolInfo find(Object pool) {
        return byPool.get(pool);
    }

    /**
     * Registers a pool. Applications that make short-lived pools would otherwise grow the registry
     * (and every lookup) without end: pools that are gone — collected, or shut down with no live
     * worker — are dropped, oldest first, keeping the last {@value #DEAD_POOLS_KEPT} for the report.
     * Under the lock; amortized O(1).
     */
    private void add(PoolInfo p, Object pool) {
        pools.add(p);
        byPool.put(pool, p);
        if (pools.size() <= pruneAt) return;
        int drop = -DEAD_POOLS_KEPT;
        for (PoolInfo x : pools) if (gone(x)) drop++;
        for (Iterator<PoolInfo> it = pools.iterator(); it.hasNext() && drop > 0; ) {
            if (gone(it.next())) {
                it.remove();
                drop--;
            }
        }
        pruneAt = Math.max(2 * DEAD_POOLS_KEPT, 2 * pools.size());
    }

    private static boolean gone(PoolInfo p) {
        if (p.alive()) return false;
        for (ThreadInfo t : p.threads) if (!t.exited) return false;
        return true;
    }

    // ---- workers ------------------------------------------------------------------------------

    /**
     * A worker of {@code pool} starts, on its own thread. Whether the pool is pinned is decided
     * without the environment; only workers of pinned pools wait for it (JDK-internal pools must
     * not: the background start-up itself runs a process, whose reaper is a pool worker).
     */
    public void workerStart(Object pool, Thread t) {
        synchronized (lock) {
            if (threads.containsKey(t)) return;
            PoolInfo p = register(pool);
            if (!p.decided) decide(p, t);
            if (!p.pinned) {
                ThreadInfo ti = new ThreadInfo(t.getName(), p);
                p.threads.add(ti);
                p.started++;
                threads.put(t, ti);
                return;
            }
        }
        Env e = env;
        if (e == null) {
            try {
                ready.await(waitMillis, TimeUnit.MILLISECONDS);
            } catch (InterruptedException ie) {
                t.interrupt();
            }
            e = env;
            if (e == null) {
                synchronized (lock) {
                    pending.put(t, pool);
                }
                Runnable r = onPending;
                if (r != null) r.run();
                return;
            }
        }
        place(pool, t, e);
    }

    /** Per-task catch-up: a worker that started before the environment was ready, or before attach. */
    public void catchUp(Object pool, Thread t, boolean attached) {
        Env e = env;
        if (e == null) return;
        if (!moves.isEmpty() && Rebalancer.rebind(this, t, e)) return;
        synchronized (lock) {
            boolean was = pending.remove(t) != null;
            if (!was && (!attached || threads.containsKey(t))) return;
            if (!was) {
                PoolInfo p = register(pool);
                if (!p.decided) decide(p, t);
                if (!p.pinned) {
                    ThreadInfo ti = new ThreadInfo(t.getName(), p);
                    p.threads.add(ti);
                    threads.put(t, ti);
                    return;
                }
            }
        }
        place(pool, t, e);
    }

    public boolean anyPending() {
        synchronized (lock) {
            return !pending.isEmpty() || !moves.isEmpty();
        }
    }

    private PoolInfo register(Object pool) {
        PoolInfo p = find(pool);
        if (p == null) {
            p = new PoolInfo(nextId++, pool, Origin.UNKNOWN, Creator.UNKNOWN_BEFORE_AGENT);
            add(p, pool);
        }
        return p;
    }

    private void place(Object pool, Thread t, Env e) {
        long t0 = System.nanoTime();
        ThreadInfo ti;
        synchronized (lock) {
            if (threads.containsKey(t)) return;
            PoolInfo p = register(pool);
            if (!p.planned) plan(p, e);
            ti = new ThreadInfo(t.getName(), p);
            p.threads.add(ti);
            p.started++;
            threads.put(t, ti);
            if (!p.pinned) return;
            if (p.tasks >= 0) {
                for (int i = 0; i < p.tasks; i++) {
                    if (p.owners[i] == null && p.slots[i] != null) {
                        p.owners[i] = t;
                        ti.slot = i;
                        ti.cpuset = p.slots[i];
                        break;
                    }
                }
            }
            if (ti.cpuset == null) ti.cpuset = p.scope;
            ti.label = label(e.topology(), ti.cpuset);
        }
        if (wantTid) ti.tid = e.binder().currentTid();
        if (options.bind() == Options.Bind.ON) ti.bound = e.binder().bind(ti.cpuset);
        ti.startNanos = System.nanoTime() - t0;
        if (Log.isVerbose()) {
            PoolInfo p = ti.pool;
            String slot = ti.slot >= 0 ? (ti.slot + "/" + p.tasks) : (p.tasks < 0 ? "unbounded" : "extra/" + p.tasks);
            Log.debug("pool " + p.name + "[" + slot + "] thread \"" + ti.name + "\" -> " + ti.label
                    + (options.bind() == Options.Bind.DRY_RUN ? " (dry run)" : ti.bound ? "" : " (not bound)"));
        }
    }

    /** A worker leaves, on its own thread: its slot is free for a replacement. */
    public void workerExit(Object pool, Thread t) {
        synchronized (lock) {
            pending.remove(t);
            moves.remove(t);
            ThreadInfo ti = threads.remove(t);
            if (ti == null) return;
            PoolInfo p = ti.pool;
            ti.exited = true; // kept for the report, a bounded history
            if (p.threads.size() > 256) p.threads.removeIf(x -> x.exited);
            if (ti.slot >= 0 && p.owners != null && p.owners[ti.slot] == t) p.owners[ti.slot] = null;
        }
    }

    /** Decides once per pool whether its workers are pinned. Under the lock. */
    private void decide(PoolInfo p, Thread first) {
        p.decided = true;
        p.name = poolName(first.getName());
        Object pool = p.ref.get();
        boolean common = pool instanceof ForkJoinPool fj && fj == ForkJoinPool.commonPool();
        p.tasks = tasks(pool);
        if (p.policy == null) {
            p.rule = rules.match(first.getName(), p.type, p.creatorKey, common);
            if (p.rule != null) p.policy = p.rule.policy();
        }
        if (options.bind() == Options.Bind.OFF) {
            p.reason = "bind=off";
        } else if (madeByQvExecutors(pool)) {
            p.policy = null;
            p.reason = "placed by QvExecutors";
        } else if (p.policy != null && p.origin != Origin.AGENT) {
            p.pinned = true;
            p.reason = p.policy.source();
        } else if (common) {
            p.pinned = options.commonPool();
            p.reason = options.commonPool() ? "common pool (common-pool=on)" : "common pool (common-pool=off)";
        } else if (!globs.isEmpty()) {
            boolean named = false;
            for (Pattern g : globs) named |= g.matcher(first.getName()).matches();
            p.pinned = named && p.origin != Origin.AGENT;
            p.reason = p.pinned ? "named by pools=" : "not named by pools=";
        } else {
            p.pinned = p.origin == Origin.APPLICATION;
            p.reason = switch (p.origin) {
                case APPLICATION -> "application pool";
                case JDK -> "JDK-internal pool";
                case AGENT -> "agent pool";
                case UNKNOWN -> "pool of unknown origin";
            };
        }
        if (Log.isVerbose()) {
            Log.debug("pool " + p.name + ": " + (p.pinned && p.policy != null ? resolved(p) + " from " + p.policy.source()
                    : p.pinned ? resolved(p) + " from the options (" + p.reason + ")" : "not pinned (" + p.reason + ")"));
        }
    }

    private Policy.Resolved resolved(PoolInfo p) {
        return p.policy == null ? Policy.Resolved.of(options) : p.policy.resolve(options);
    }

    private static boolean madeByQvExecutors(Object pool) {
        return pool instanceof ThreadPoolExecutor t && t.getThreadFactory().getClass().getName().startsWith("io.qv4j.api.QvExecutors");
    }

    /** Where a pinned pool's workers go, once the environment is known. Under the lock. */
    private void plan(PoolInfo p, Env e) {
        p.planned = true;
        if (e.topology() == null) {
            p.pinned = false;
            p.reason = "no topology: " + e.problem();
            return;
        }
        if (p.tasks < 0) {
            p.scope = e.jvm();
            p.universe = e.jvm().toString();
            p.reason += ", unbounded: bound to the pool scope";
            return;
        }
        plan(p, e, null, 0);
    }

    /** {@code others}: PUs other JVMs claim (null: ask the claims); {@code attempt}: re-plans after a lost claim race. */
    private void plan(PoolInfo p, Env e, CpuSet others, int attempt) {
        Claims node = e.node() == null ? null : e.node().claims();
        if (others == null) others = node == null ? CpuSet.empty() : node.others(e.jvm());
        Policy.Resolved policy = resolved(p);
        if (p.rule != null && p.rule.weighted()) {
            CpuSet share = weightedShare(p.rule, e);
            if (share != null) {
                try {
                    Planner.Plan plan = planner.plan(e.topology(), share, policy, p.tasks);
                    p.universe = share.toString();
                    slots(p, plan, e, others, others, attempt);
                    return;
                } catch (RuntimeException ex) {
                    Log.once("plan:" + ex, "cannot place pool " + p.name + " on its weighted share " + share + " (" + ex + "): planning on the JVM scope");
                }
            }
        }
        CpuSet claimed = others;
        for (PoolInfo o : pools) {
            if (o != p && o.pinned && o.slots != null && o.alive()) claimed = claimed.or(o.scope);
        }
        CpuSet free = e.jvm().andNot(claimed);
        Planner.Plan plan = null;
        if (!claimed.isEmpty() && !free.isEmpty()) {
            try {
                plan = planner.plan(e.topology(), free, policy, p.tasks);
                if (plan.pieces() < p.tasks) plan = null;
                else p.universe = free.toString();
            } catch (RuntimeException ex) {
                plan = null;
            }
        }
        if (plan == null) {
            try {
                plan = planner.plan(e.topology(), e.jvm(), policy, p.tasks);
                p.universe = e.jvm().toString();
            } catch (RuntimeException | LinkageError ex) {
                p.pinned = false;
                p.reason = "placement failed: " + ex;
                Log.once("plan:" + ex, "cannot place pool " + p.name + " (" + ex + "): it runs unpinned");
                return;
            }
        }
        slots(p, plan, e, claimed, others, attempt);
    }

    /** The share of the JVM scope of each weighted rule, in rule order ({@code splitWeighted}). Under the lock. */
    private CpuSet weightedShare(Rule r, Env e) {
        if (weighted == null) {
            weighted = new LinkedHashMap<>();
            List<Rule> ws = new ArrayList<>();
            for (Rule x : rules.list()) if (x.weighted()) ws.add(x);
            double[] w = new double[ws.size()];
            for (int i = 0; i < w.length; i++) w[i] = ws.get(i).weight();
            try {
                List<io.qv4j.api.Scope> pieces = io.qv4j.api.Scope.of(e.topology(), e.jvm()).splitWeighted(w).pieces();
                for (int i = 0; i < ws.size() && i < pieces.size(); i++) weighted.put(ws.get(i).name(), pieces.get(i).cpuset());
                Log.debug("weighted rules: " + weighted);
            } catch (RuntimeException ex) {
                Log.once("weights", "cannot split the JVM scope " + e.jvm() + " by the rules' weights (" + ex.getMessage() + "): weights ignored");
            }
        }
        return weighted.get(r.name());
    }

    /** Fills the pool's slots from a plan and claims them node-wide; {@code claimed}: PUs taken by others. */
    private void slots(PoolInfo p, Planner.Plan plan, Env e, CpuSet claimed, CpuSet others, int attempt) {
        Claims node = e.node() == null ? null : e.node().claims();
        p.slots = new CpuSet[p.tasks];
        p.owners = new Thread[p.tasks];
        CpuSet union = CpuSet.empty();
        for (int i = 0; i < p.tasks && i < plan.perTask().size(); i++) {
            p.slots[i] = plan.perTask().get(i);
            if (p.slots[i] != null) union = union.or(p.slots[i]);
        }
        p.scope = union.isEmpty() ? e.jvm() : union;
        p.shares = p.scope.intersects(claimed);
        if (p.shares) Log.debug("pool " + p.name + " shares PUs with other pinned pools or JVMs (" + claimed + " taken)");
        // node-wide claims: another JVM may have claimed some of these PUs since we looked; plan again without them
        CpuSet lost = node == null || p.shares ? CpuSet.empty() : node.claim(union);
        if (!lost.isEmpty() && attempt < 2) {
            node.release(union.andNot(lost));
            plan(p, e, others.or(lost), attempt + 1);
        }
    }

    /** T: FJ parallelism; TPE core size, else max size if bounded; -1 = unbounded. */
    static int tasks(Object pool) {
        if (pool instanceof ForkJoinPool fj) return Math.max(1, fj.getParallelism());
        if (pool instanceof ThreadPoolExecutor tpe) {
            if (tpe.getCorePoolSize() > 0) return tpe.getCorePoolSize();
            return tpe.getMaximumPoolSize() == Integer.MAX_VALUE ? -1 : tpe.getMaximumPoolSize();
        }
        return -1;
    }

    /** {@code pool-1-thread-3} → {@code pool-1}; {@code app-7} → {@code app}. */
    private static final Pattern WORKER_SUFFIX = Pattern.compile("-(thread|worker)-\\d+$");
    private static final Pattern NUMBER_SUFFIX = Pattern.compile("[-_ #]?\\d+$");

    static String poolName(String thread) {
        String n = WORKER_SUFFIX.matcher(thread).replaceFirst("");
        if (n.equals(thread)) n = NUMBER_SUFFIX.matcher(thread).replaceFirst("");
        return n.isEmpty() ? thread : n;
    }

    /** {@code core 3 (pus 6-7)}: the object that is exactly this cpuset, innermost type first. */
    static String label(Topology t, CpuSet cpus) {
        if (t != null) {
            HwType[] order = {HwType.CORE, HwType.L2, HwType.L3, HwType.NUMANODE, HwType.DIE, HwType.PACKAGE, HwType.MACHINE};
            if (cpus.cardinality() == 1) {
                HwObject pu = t.pu(cpus.first());
                HwObject core = pu == null ? null : pu.ancestor(HwType.CORE);
                if (core != null && core.cpuset().equals(cpus)) return "core " + core.logicalIndex() + " (pu " + cpus + ")";
                return "pu " + cpus;
            }
            for (HwType type : order) {
                for (HwObject o : t.objects(type)) {
                    if (o.cpuset().equals(cpus)) return type.shortName() + " " + o.logicalIndex() + " (pus " + cpus + ")";
                }
            }
        }
        return "pus " + cpus;
    }

    // ---- for the Rebalancer ---------------------------------------------------------------------

    /** Workers whose slot moved in a rebalance: their new cpuset, applied on their own thread at their next task. */
    final Map<Thread, CpuSet> moves = new java.util.concurrent.ConcurrentHashMap<>();

    Object lock() {
        return lock;
    }

    /** Under {@link #lock()}. */
    List<PoolInfo> pools() {
        return pools;
    }

    /** Under {@link #lock()}. */
    Map<Thread, ThreadInfo> threads() {
        return threads;
    }

    Planner planner() {
        return planner;
    }

    Options options() {
        return options;
    }

    /** Turns the per-task catch-up on (workers have somewhere new to go). */
    void requestCatchUp() {
        Runnable r = onPending;
        if (r != null) r.run();
    }

    // ---- report -------------------------------------------------------------------------------

    /** Pools, threads, slots and cpusets as JSON-ready maps. */
    public Map<String, Object> snapshot() {
        Map<String, Object> out = new LinkedHashMap<>();
        Env e = env;
        Map<String, Object> agent = new LinkedHashMap<>();
        agent.put("bind", options.bind().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
        agent.put("policy", options.policy());
        agent.put("commonPool", options.commonPool());
        agent.put("pools", options.pools());
        agent.put("topology", e == null || e.topology() == null ? null : e.topology().source());
        agent.put("jvmScope", e == null || e.jvm() == null ? null : e.jvm().toString());
        agent.put("binder", e == null ? null : e.binder().describe());
        agent.put("problem", e == null ? "not ready" : e.problem());
        agent.put("node", e == null || e.node() == null ? null : e.node().report());
        out.put("agent", agent);
        List<Object> list = new ArrayList<>();
        synchronized (lock) {
            for (PoolInfo p : pools) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("id", p.id);
                m.put("name", p.name);
                m.put("class", p.type);
                m.put("origin", p.origin.name().toLowerCase(java.util.Locale.ROOT));
                m.put("creator", p.creator.text());
                m.put("pinned", p.pinned);
                m.put("reason", p.reason);
                m.put("policy", p.decided && p.pinned ? resolved(p).toString() : null);
                m.put("rule", p.rule == null ? null : p.rule.name());
                m.put("tasks", p.decided ? p.tasks : null);
                m.put("universe", p.universe);
                m.put("scope", p.scope == null ? null : p.scope.toString());
                m.put("sharesPus", p.shares);
                m.put("started", p.started);
                List<Object> slots = new ArrayList<>();
                if (p.slots != null) {
                    for (int i = 0; i < p.slots.length; i++) {
                        Map<String, Object> s = new LinkedHashMap<>();
                        s.put("slot", i);
                        s.put("cpuset", p.slots[i] == null ? null : p.slots[i].toString());
                        s.put("piece", p.slots[i] == null ? null : label(e == null ? null : e.topology(), p.slots[i]));
                        s.put("thread", p.owners[i] == null ? null : p.owners[i].getName());
                        slots.add(s);
                    }
                }
                m.put("slots", slots);
                List<Object> ths = new ArrayList<>();
                for (ThreadInfo ti : p.threads) {
                    Map<String, Object> t = new LinkedHashMap<>();
                    t.put("name", ti.name);
                    t.put("tid", ti.tid);
                    t.put("slot", ti.slot);
                    t.put("cpuset", ti.cpuset == null ? null : ti.cpuset.toString());
                    t.put("piece", ti.label);
                    t.put("bound", ti.bound);
                    t.put("exited", ti.exited);
                    t.put("startMicros", ti.startNanos < 0 ? null : ti.startNanos / 1000.0);
                    if (ti.rebinds > 0) t.put("rebinds", ti.rebinds);
                    ths.add(t);
                }
                m.put("threads", ths);
                list.add(m);
            }
        }
        out.put("pools", list);
        return out;
    }
}
