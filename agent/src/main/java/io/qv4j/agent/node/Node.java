package io.qv4j.agent.node;

import io.qv4j.agent.bind.Binder;
import io.qv4j.agent.bind.NativeAffinity;
import io.qv4j.agent.load.LoadMeter;
import io.qv4j.agent.log.Log;
import io.qv4j.agent.config.NodeOptions;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;
import io.qv4j.topology.linux.CgroupQuota;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * This JVM among others on the node: its local rank, the scope that follows (applied to every
 * thread of the process), the CPU quota and the node-wide claims. Made once on the agent's
 * background start-up thread, before any pool is placed.
 */
public final class Node {

    /** How long after start-up the late pass over /proc/self/task runs. */
    static final long RESWEEP_MILLIS = 500;

    private final LocalRank rank;
    private final Double quota;
    private final LauncherScope scope;
    private final Claims claims;
    private final String claimsMode;
    private final int threadsBound;
    private final boolean applied;
    /** What runs on the CPUs besides this JVM; null when {@code neighbours=off} or it cannot be read. */
    private LoadMeter load;
    private long neighboursMillis;

    private Node(LocalRank rank, Double quota, LauncherScope scope, Claims claims, String claimsMode, int threadsBound, boolean applied) {
        this.rank = rank;
        this.quota = quota;
        this.scope = scope;
        this.claims = claims;
        this.claimsMode = claimsMode;
        this.threadsBound = threadsBound;
        this.applied = applied;
    }

    /**
     * Starts reading what the claims of other JVMs will need ({@link LockTable#readAhead}), while
     * the agent starts: call at once where claims are read (not {@code claims=off}) and the JNI
     * library, which asks about each lock file instead, is not loaded.
     */
    public static void readAhead() {
        LockTable.readAhead();
    }

    /** This process's id, from {@code /proc/self} ({@code ProcessHandle} would start the JDK's process-reaper pool); -1 if unread. */
    public static long ownPid() {
        return LockTable.ownPid();
    }

    /**
     * @param live   the topology is this machine (not a dry-run topology)
     * @param binder the worker binder; the process is bound (and claims taken) only when it {@link Binder#binds()},
     *               and through the JNI library only
     * @param load   what runs on the CPUs, read since the agent started; null: {@code neighbours=off}
     */
    public static Node setup(NodeOptions o, Topology topology, boolean live, Binder binder, Map<String, String> env, LoadMeter load) {
        boolean bindOn = binder.binds();
        LocalRank rank = LocalRank.detect(o.localRank(), env);
        Double quota = live ? CgroupQuota.live() : null;
        LauncherScope scope = LauncherScope.compute(topology, topology.allowed(), rank, o.rankSplitAt(), quota, o.respectQuota());
        for (String m : scope.messages()) Log.info(m);
        Log.debug("JVM scope: " + scope.detail());

        int bound = 0;
        boolean applied = false;
        if (live && bindOn && !scope.scope().equals(topology.allowed())) {
            if (binder instanceof NativeAffinity) {
                ProcessAffinity pa = new ProcessAffinity(scope.scope());
                bound = pa.sweepAll();
                pa.resweepLater(RESWEEP_MILLIS);
                applied = true;
                Log.debug("JVM scope pus " + scope.scope() + " applied to " + bound + " threads of the process");
            } else {
                Log.info("the JVM scope pus " + scope.scope() + " is not applied to the JVM's own threads (GC, JIT, main): "
                        + "the agent's native library is not loaded; only pinned pool workers stay inside it");
            }
        }

        Claims claims;
        String mode;
        if (o.claims() == NodeOptions.Claims.OFF || !live) {
            claims = null;
            mode = "off";
        } else {
            boolean take = bindOn && o.claims() == NodeOptions.Claims.NODE;
            Path dir = o.claimsDir() != null ? Path.of(o.claimsDir()) : ClaimsDir.defaultDir(env);
            claims = Claims.open(dir, take);
            if (o.claimsDir() == null) claims.alsoRead(ClaimsDir.otherDefault(env));
            claims.keepFresh(o.claimsRefreshMillis());
            mode = claims.takes() ? "node" : claims.refused() != null && take ? "refused" : "observe";
        }
        Node node = new Node(rank, quota, scope, claims, mode, bound, applied);
        if (live && bindOn && load != null) {
            node.load = load;
            node.neighboursMillis = o.neighboursMillis();
        }
        return node;
    }

    /** A JVM alone on the node (no launcher, no quota) that claims through {@code claims}. */
    public static Node alone(Topology topology, Claims claims) {
        LauncherScope scope = LauncherScope.compute(topology, topology.allowed(), null, null, null, false);
        return new Node(null, null, scope, claims, claims.takes() ? "node" : "observe", 0, false);
    }

    /** The JVM's scope: pools split this. */
    public CpuSet jvm() {
        return scope.scope();
    }

    /** The launcher's decision: {@code none}, {@code split}, {@code bound-by-launcher}, {@code unbound-launcher-none}, {@code unbound-oversubscribed}. */
    public LauncherScope.Decision launcherDecision() {
        return scope.decision();
    }

    /** The claims mode in effect: {@code node} (taking), {@code observe}, {@code refused} (asked to take, directory refused), {@code off}. */
    public String claimsMode() {
        return claimsMode;
    }

    /** What runs on the CPUs besides this JVM (plans leave busy PUs out, the watcher moves waiting workers), or null: {@code neighbours=off}, a dry run, no {@code /proc}. */
    public LoadMeter load() {
        return load;
    }

    /** How often the watcher looks at pinned workers' waits; 0 when it does not. */
    public long neighboursMillis() {
        return load == null ? 0 : neighboursMillis;
    }

    /** Node-wide claims (taking, or only observing), or null when off. */
    public Claims claims() {
        return claims;
    }

    /** For the JSON report's {@code agent.node}. */
    public Map<String, Object> report() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("localRank", rank == null ? null : rank.rank());
        m.put("localSize", rank == null ? null : rank.size());
        m.put("launcher", rank == null ? null : rank.source());
        m.put("launcherBound", scope.launcherBound());
        m.put("launcherDecision", scope.decision().word());
        m.put("launcherNoBinding", rank == null ? null : rank.noBinding());
        m.put("oversubscribed", scope.oversubscribed());
        m.put("jvmScope", scope.scope().toString());
        m.put("sharedPiece", scope.shared());
        m.put("scopeDetail", scope.detail());
        m.put("appliedToProcess", applied);
        m.put("threadsBound", threadsBound);
        m.put("cpuQuota", quota);
        m.put("quotaBelowAllowed", quota != null && scope.messages().stream().anyMatch(s -> s.startsWith("CPU quota")));
        m.put("claims", claimsMode);
        m.put("neighbours", load == null ? "off" : neighboursMillis + "ms");
        m.put("claimsDir", claims == null || claims.dir() == null ? null : claims.dir().toString());
        m.put("claimsRefused", claims == null ? null : claims.refused());
        m.put("claimed", claims == null ? null : claims.mine().toString());
        Map<String, Object> lost = new LinkedHashMap<>();
        if (claims != null) claims.lost().forEach((pu, who) -> lost.put(String.valueOf(pu), who));
        m.put("claimsLost", lost);
        m.put("claimsRemade", claims == null ? 0 : claims.remade());
        m.put("openhftDir", claims == null || claims.openHftDir() == null ? null : claims.openHftDir().toString());
        m.put("openhftHeld", claims == null ? null : claims.openHftHeld().toString());
        Map<String, Object> skipped = new LinkedHashMap<>();
        if (claims != null) claims.openHftSkipped().forEach((pu, why) -> skipped.put(String.valueOf(pu), why));
        m.put("openhftSkipped", skipped);
        return m;
    }
}
