package io.qv4j.agent.place;

import io.qv4j.agent.config.Options;
import io.qv4j.agent.config.Rules;
import io.qv4j.agent.load.PuLoad;
import io.qv4j.agent.log.Log;
import io.qv4j.agent.node.Claims;
import io.qv4j.agent.node.Node;
import io.qv4j.api.PlacementSpec;
import io.qv4j.split.Slots;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.HwType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Where a pinned pool's workers go (DESIGN.md §6.2), once the environment is known: the pool's own
 * policy (annotation or rule over the options) applied to its universe, which is the part of the
 * JVM scope no other pinned pool or JVM holds when that part can take the pool, else the whole
 * JVM scope (the report says the pool shares PUs); a weighted rule's pools plan on the rule's
 * share. The pool's PUs are then claimed node-wide, holding the claims' plan lock from the read of
 * the others' claims on. Where a claim is lost all the same (an OpenHFT lock holder, a JVM that
 * waited the lock out), the pool is planned again without those PUs: each lost race adds one to
 * the others' claims, so this ends within the scope's PUs.
 */
final class PoolPlanner {

    private final Options options;
    private final PoolRegistry registry;
    private final ExclusiveRoom room;
    private final EnginePlanner engine = new EnginePlanner();
    private final NumaAdvice numa = new NumaAdvice();
    private final Rules rules;
    private WeightedShares weighted; // made for the first pool of a weighted rule: a start loads no class it does not use

    PoolPlanner(Options options, Rules rules, PoolRegistry registry, ExclusiveRoom room) {
        this.options = options;
        this.rules = rules;
        this.registry = registry;
        this.room = room;
    }

    /** The pool's effective policy: its annotation or rule over the options. */
    static PlacementSpec policyOf(Pool p, Options o) {
        return p.policy == null ? o.policy() : p.policy.resolve(o.policy());
    }

    /** How many pieces the pool's policy makes of the JVM scope (a group of plain threads of unknown size takes one thread per piece); 1 if it cannot say. */
    int pieces(Pool p, Env e) {
        try {
            return Math.max(1, engine.plan(e.topology(), e.ordinary(), policyOf(p, options), 1).pieces());
        } catch (RuntimeException | LinkageError ex) {
            return 1;
        }
    }

    /**
     * Plans {@code p}, holding the claims' plan lock where this JVM takes claims, unless it claims
     * every PU the pool may take already: no other JVM can take or give back one of those, so
     * there is nothing to read whole (an application that makes pools one after another inside
     * the PUs its pools hold takes no file lock per pool). Under the registry's lock.
     */
    void plan(Pool p, Env e) {
        Claims node = e.node() == null ? null : e.node().claims();
        boolean locked = node != null && !node.holdsAll(mayTake(p, e)) && node.lockPlans();
        try {
            planLocked(p, e, node);
        } finally {
            if (locked) node.unlockPlans();
        }
    }

    private void planLocked(Pool p, Env e, Claims node) {
        p.planned = true;
        if (e.topology() == null) {
            p.pinned = false;
            p.reason = "no topology: " + e.problem();
            return;
        }
        p.exclusive = false;
        p.memory = p.policy == null ? options.memory() : p.policy.memory(options.memory());
        if (p.tasks > 0 && exclusiveOf(p, options) && room.plan(p, e)) return;
        CpuSet scope = scopeOf(p, e);
        if (p.parent != null && !scope.equals(e.ordinary())) p.reason += ", inside its creator's piece " + scope;
        CpuSet isolated = e.rest().and(e.topology().isolated());
        if (!isolated.isEmpty() && !scope.intersects(isolated)) {
            p.reason += ", off the kernel-isolated pus " + isolated;
            Log.once("isolated", "pus " + isolated + " are isolated by the kernel (no load balancing there): pools are planned on pus " + scope);
        }
        if (p.tasks < 0) {
            p.scope = scope;
            p.universe = scope;
            p.reason += ", unbounded: bound to the pool scope";
            return;
        }
        CpuSet others = othersClaim(e, scope);
        if (!others.isEmpty()) others = node.othersSettled(scope, others, cut(p, e, scope));
        PuLoad load = e.node() == null || e.node().load() == null ? null : e.node().load().recent();
        if (load != null && Log.isVerbose()) Log.debug("pool " + p.name + ": others' load over the last " + load.millis() + " ms: " + load.describe(scope));
        for (int attempt = 0; ; attempt++) {
            CpuSet claimed = others.or(held(p));
            EnginePlanner.Plan plan = choose(p, e, scope, claimed);
            if (plan == null) return;
            plan = byAvailability(p, e, plan, claimed, load);
            CpuSet union = fill(p, plan, scope);
            if (union.intersects(others)) {
                // the free part cannot hold the pool: leave the workers to the kernel's balancing
                // inside the scope rather than pile them onto PUs other JVMs hold
                boundToScope(p, scope, "not enough PUs free of other JVMs' claims (" + others + ")");
                Log.once("crowded:" + p.name, "pool " + p.name + ": other JVMs claim " + others + " of " + scope
                        + " and the rest cannot hold its " + p.tasks + " workers: they share " + scope);
                return;
            }
            if (load != null && !load.busy(union).isEmpty()) Log.debug("pool " + p.name + ": it also takes " + load.describeBusy(union));
            p.released = false;
            p.shares = p.scope.intersects(claimed);
            if (p.shares) Log.debug("pool " + p.name + " shares PUs with other pinned pools (" + claimed + " taken)");
            CpuSet lost = node == null || p.shares ? CpuSet.empty() : node.claim(union);
            if (lost.isEmpty() || attempt > scope.cardinality()) {
                numa.note(p, e);
                return;
            }
            node.release(union.andNot(lost));
            others = others.or(lost);
        }
    }

    /** The PUs a plan of {@code p} may take: an exclusive pool's, the JVM's (isolated ones included); else its scope (a weighted share lies inside it). */
    private CpuSet mayTake(Pool p, Env e) {
        return p.tasks > 0 && exclusiveOf(p, options) ? e.jvm() : scopeOf(p, e);
    }

    /** Whether the pool asks for cores of its own: its annotation or rule, else the options. */
    static boolean exclusiveOf(Pool p, Options o) {
        return p.policy == null ? o.exclusive() : p.policy.exclusive(o.exclusive());
    }

    /** The PUs this JVM's exclusive pools hold, but {@code except}'s (null: all of them). Under the registry's lock. */
    CpuSet exclusive(Pool except) {
        CpuSet held = CpuSet.empty();
        for (Pool o : registry.current()) {
            if (o != except && o.exclusive && o.pinned && o.slots != null && !o.gone()) held = held.or(o.scope);
        }
        return held;
    }

    /** The pool's workers are bound to its whole scope, where the kernel balances them, for {@code why}. */
    private static void boundToScope(Pool p, CpuSet scope, String why) {
        p.slots = null;
        p.scope = scope;
        p.shares = true;
        p.reason += ", " + why + ": bound to the pool scope";
    }

    /**
     * The structural plan with its tasks moved to whole pieces nobody claims and others leave idle,
     * where it uses claimed or busy ones ({@link IdlePieces}: the pieces stay whole); on machines of
     * several CPU kinds, as it is. {@code load} may be null (no view).
     */
    private EnginePlanner.Plan byAvailability(Pool p, Env e, EnginePlanner.Plan plan, CpuSet claimed, PuLoad load) {
        if (e.topology().cpuKinds().size() > 1 || claimed.isEmpty() && load == null) return plan;
        try {
            return IdlePieces.choose(e.topology(), policyOf(p, options), p.tasks, plan, new IdlePieces.Weight(claimed, load), Turn.OF_THIS_JVM);
        } catch (RuntimeException ex) {
            return plan;
        }
    }

    /** This JVM's turn among busy pieces of alike load ({@link IdlePieces#ALIKE}): its process id, read when first asked. */
    private static final class Turn {
        static final int OF_THIS_JVM = (int) (Node.ownPid() & 0xffff);
    }

    /** The pieces the pool's policy cuts {@code scope} into (planned once, then remembered); empty when it cannot. */
    List<CpuSet> cut(Pool p, Env e, CpuSet scope) {
        try {
            return engine.plan(e.topology(), scope, policyOf(p, options), Math.max(1, p.tasks)).cut();
        } catch (RuntimeException ex) {
            return List.of();
        }
    }

    /** Whether the pool would be pinned on PUs of its scope that nobody holds and others leave idle. Under the registry's lock. */
    boolean fitsIdle(Pool p, Env e, PuLoad load) {
        CpuSet scope = scopeOf(p, e);
        CpuSet free = scope.andNot(othersClaim(e, scope)).andNot(held(p));
        try {
            if (free.isEmpty()) return false;
            EnginePlanner.Plan plan = byAvailability(p, e, engine.plan(e.topology(), free, policyOf(p, options), p.tasks), CpuSet.empty(), load);
            if (plan.pieces() < p.tasks) return false;
            for (CpuSet c : plan.perTask()) if (c != null && IdlePieces.busy(load.mean(c))) return false;
            return true;
        } catch (RuntimeException ex) {
            return false;
        }
    }

    /** The PUs this JVM's pinned pools hold, but {@code except}'s (null: all of them). Under the registry's lock. */
    CpuSet held(Pool except) {
        CpuSet held = CpuSet.empty();
        for (Pool o : registry.current()) {
            if (o != except && o.pinned && o.slots != null && o.alive()) held = held.or(o.scope);
        }
        return held;
    }

    /** The PUs of {@code scope} other JVMs (and OpenHFT lock holders) claim; empty without claims. */
    static CpuSet othersClaim(Env e, CpuSet scope) {
        return e.node() == null || e.node().claims() == null ? CpuSet.empty() : e.node().claims().others(scope);
    }

    /** What the pool splits: the JVM scope, or its creator's piece of it (nested scopes, DESIGN.md §7). */
    static CpuSet scopeOf(Pool p, Env e) {
        CpuSet ordinary = e.ordinary();
        return p.parent != null && p.parent.intersects(ordinary) ? p.parent.and(ordinary) : ordinary;
    }

    /**
     * The structural plan: on the whole scope where enough of its pieces are free of claims (the
     * claimed ones are then left by {@link #byAvailability}), else on the part of the scope nobody
     * claims, else on all of it; null (pool unpinned) when the policy cannot place it. Load plays
     * no part here: it may only choose among the pieces, never make them smaller.
     */
    private EnginePlanner.Plan choose(Pool p, Env e, CpuSet scope, CpuSet claimed) {
        PlacementSpec policy = policyOf(p, options);
        if (p.rule != null && p.rule.weighted() && p.parent == null) {
            if (weighted == null) weighted = new WeightedShares(rules);
            CpuSet share = weighted.of(p.rule, e);
            if (share != null) {
                try {
                    EnginePlanner.Plan plan = engine.plan(e.topology(), share, policy, p.tasks);
                    p.universe = share;
                    return plan;
                } catch (RuntimeException ex) {
                    Log.once("plan:" + ex, "cannot place pool " + p.name + " on its weighted share " + share + " (" + ex + "): planning on the JVM scope");
                }
            }
        }
        CpuSet free = scope.andNot(claimed);
        if (!claimed.isEmpty() && !free.isEmpty()) {
            // whole pieces nobody claims, where there are enough (byAvailability picks them):
            // cutting the free PUs instead would make pieces of another size round a claim
            if (e.topology().cpuKinds().size() <= 1) {
                try {
                    EnginePlanner.Plan whole = engine.plan(e.topology(), scope, policy, p.tasks);
                    if (IdlePieces.wholePiecesFree(policy, whole, claimed)) {
                        p.universe = free; // what it may take: whole pieces inside it
                        return whole;
                    }
                } catch (RuntimeException ex) {
                    // planned on the free part below
                }
            }
            try {
                EnginePlanner.Plan plan = engine.plan(e.topology(), free, policy, p.tasks);
                if (plan.pieces() >= p.tasks) {
                    p.universe = free;
                    return plan;
                }
            } catch (RuntimeException ex) {
                // the free part cannot take this policy: the whole scope
            }
        }
        try {
            EnginePlanner.Plan plan = engine.plan(e.topology(), scope, policy, p.tasks);
            p.universe = scope;
            return plan;
        } catch (RuntimeException | LinkageError ex) {
            p.pinned = false;
            p.reason = "placement failed: " + ex;
            Log.once("plan:" + ex, "cannot place pool " + p.name + " (" + ex + "): it runs unpinned");
            return null;
        }
    }

    /**
     * The pool's slots from a plan; returns the union of the pieces. Never oversubscribe by
     * pinning (the Open MPI rule): where a piece would get more workers than it has PUs, those
     * workers get no piece of their own and share the pool scope, unless {@code oversubscribe=true}.
     */
    private CpuSet fill(Pool p, EnginePlanner.Plan plan, CpuSet scope) {
        List<CpuSet> pieces = new ArrayList<>(p.tasks);
        for (int i = 0; i < p.tasks; i++) pieces.add(i < plan.perTask().size() ? plan.perTask().get(i) : null);
        CpuSet union = CpuSet.empty();
        for (CpuSet c : pieces) if (c != null) union = union.or(c);
        p.oversubscribed = false;
        if (!options.oversubscribe()) {
            boolean[] over = Oversubscription.of(pieces);
            for (int i = 0; i < over.length; i++) {
                if (over[i]) {
                    pieces.set(i, null);
                    p.oversubscribed = true;
                }
            }
            if (p.oversubscribed) {
                p.reason += ", oversubscribed: more workers than PUs on some pieces, those share the pool scope";
                Log.once("oversub:" + p.name, "pool " + p.name + ": " + p.tasks + " workers on " + union.cardinality()
                        + " PUs would oversubscribe pieces: those workers share pus " + union + " (oversubscribe=true pins them anyway)");
            }
        }
        p.slots = new Slots(pieces);
        p.scope = union.isEmpty() ? scope : union;
        return union;
    }

    /** The -XX:+UseNUMA advice, or null. */
    String numaAdvice() {
        return numa.advice();
    }

    /**
     * A rebalance gave {@code p} the piece {@code piece}: its slots are re-planned inside it by the
     * pool's own policy (every slot gets the whole piece when the policy does not fit); the
     * caller then brings the node-wide claims up to date ({@link #syncClaims}). Under the registry's lock.
     */
    void replan(Pool p, CpuSet piece, Env e) {
        List<CpuSet> perTask;
        try {
            perTask = engine.plan(e.topology(), piece, policyOf(p, options), p.tasks).perTask();
        } catch (RuntimeException ex) {
            perTask = List.of();
        }
        List<CpuSet> pieces = new ArrayList<>(p.tasks);
        for (int s = 0; s < p.tasks; s++) pieces.add(s < perTask.size() && perTask.get(s) != null ? perTask.get(s) : piece);
        p.slots.repiece(pieces);
        p.scope = piece;
        p.universe = piece;
        p.shares = false;
    }

    /**
     * The pool's size changed ({@code setCorePoolSize}): it is planned again for {@code tasks};
     * running workers keep their slot number where it still exists and move at their next task.
     * True when some worker has to move. Under the registry's lock.
     */
    boolean resize(Pool p, int tasks, Env e) {
        int before = p.tasks;
        p.planned = false;
        p.slots = null;
        p.scope = null;
        syncClaims(e);
        p.tasks = tasks;
        plan(p, e);
        Log.debug("pool " + p.name + " resized from " + before + " to " + tasks + " workers: planned again");
        return p.slots != null && moveWorkers(p, false);
    }

    /**
     * After {@code p} was planned again: each running worker keeps its slot number where it still
     * exists and moves to that slot's piece (else the pool scope) at its next task; workers the
     * application bound stay. With {@code all} (the process's allowed set changed), a worker
     * without a slot (its piece was lost to an earlier narrowing) takes a free one, and every
     * worker binds again at its next task, also where its piece is the same: the kernel changed
     * its mask. True when some worker has to move. Under the registry's lock.
     */
    boolean moveWorkers(Pool p, boolean all) {
        List<Map.Entry<Thread, Worker>> mine = new ArrayList<>();
        for (Map.Entry<Thread, Worker> x : registry.liveWorkers().entrySet()) {
            Worker w = x.getValue();
            if (w.pool != p || w.exited || w.appBound) continue;
            mine.add(x);
            w.slot = w.slot >= 0 && p.slots != null && w.slot < p.tasks ? p.slots.takeAt(w.slot, x.getKey()) : -1;
        }
        boolean moved = false;
        for (Map.Entry<Thread, Worker> x : mine) {
            Worker w = x.getValue();
            if (all && w.slot < 0 && p.slots != null) w.slot = p.slots.take(x.getKey());
            CpuSet c = w.slot >= 0 ? p.slots.piece(w.slot) : p.scope;
            if (c != null && (all || !c.equals(w.cpuset))) {
                registry.moves.put(x.getKey(), c);
                moved = true;
            }
        }
        return moved;
    }

    /**
     * Slot {@code slot} of {@code p} gets the piece {@code target}, the claims follow, under the plan lock from a last
     * read of the others' claims on; false, nothing changed, where another JVM claims part of it now. Under the registry's lock.
     */
    boolean moveSlot(Pool p, int slot, CpuSet target, Env e) {
        Claims node = e.node() == null ? null : e.node().claims();
        boolean locked = node != null && node.lockPlans();
        try {
            if (!othersClaim(e, target).isEmpty()) return false; // another JVM moved or planned there since the watcher looked
            List<CpuSet> pieces = new ArrayList<>(p.slots.size());
            for (int s = 0; s < p.slots.size(); s++) pieces.add(s == slot ? target : p.slots.piece(s));
            p.slots.repiece(pieces);
            p.scope = p.slots.union();
            syncClaims(e);
            return true;
        } finally {
            if (locked) node.unlockPlans();
        }
    }

    /** The rules' weighted shares are worked out again from the next JVM scope. Under the registry's lock. */
    void forgetWeights() {
        if (weighted != null) weighted.forget();
    }

    /** Makes this JVM's node-wide claims equal the PUs its pinned pools hold now. Under the registry's lock. */
    void syncClaims(Env e) {
        Claims node = e.node() == null ? null : e.node().claims();
        if (node == null || !node.takes()) return;
        CpuSet held = CpuSet.empty();
        for (Pool o : registry.current()) {
            if (o.pinned && o.slots != null && o.alive() && !o.shares) held = held.or(o.scope);
        }
        CpuSet mine = node.mine();
        if (mine.equals(held)) return; // nothing to give back or take: no plan lock
        boolean locked = node.lockPlans(); // others never read these claims half changed
        try {
            node.release(mine.andNot(held));
            node.claim(held.andNot(mine));
        } finally {
            if (locked) node.unlockPlans();
        }
    }

    /** The {@code carriers=} scope: the JVM's ({@code jvm}), or the N-th object of TYPE that has PUs in it; null = the JVM scope. */
    CpuSet carrierScope(Env e) {
        String c = options.carriers();
        int colon = c == null ? -1 : c.indexOf(':');
        if (colon < 0 || e.topology() == null) return null;
        int n = Integer.parseInt(c.substring(colon + 1));
        int i = 0;
        for (HwObject o : e.topology().objects(HwType.parse(c.substring(0, colon)))) {
            if (!o.cpuset().intersects(e.jvm())) continue;
            if (i++ == n) return o.cpuset().and(e.jvm());
        }
        Log.once("carriers:" + c, "carriers=" + c + ": no such object in the JVM's scope " + e.jvm() + ": carriers bound to the JVM scope");
        return null;
    }
}
