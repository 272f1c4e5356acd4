package io.qv4j.agent.place;

import io.qv4j.agent.load.PuLoad;
import io.qv4j.api.Color;
import io.qv4j.api.PlacementSpec;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.HwType;
import io.qv4j.topology.Topology;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Which of a split's pieces a pool takes when some of them are busy (DESIGN.md §7.1): others keep
 * them busy, or another JVM claims some of their PUs. Load and claims choose pieces, never their
 * size: a piece is what the split made of the scope, and a worker gets the whole of it. When none
 * of the pieces the policy would use is busy, or every piece is used anyway, the plan is the
 * structural one, unchanged. Otherwise the policy's color maps the tasks onto other pieces of the
 * same split: {@code packed} onto the first idle pieces of the smallest object of the machine that
 * has enough of them (so a packed pool stays inside its package while the package has room),
 * {@code spread} spread over the idle pieces. Where fewer pieces are idle than the pool needs, the
 * least loaded busy ones make up the rest. Pure.
 */
final class IdlePieces {

    private IdlePieces() {
    }

    /** The object types that hold pieces, for finding the smallest one with enough idle pieces. */
    private static final HwType[] CONTAINERS = {
        HwType.MACHINE, HwType.PACKAGE, HwType.DIE, HwType.NUMANODE, HwType.L3, HwType.L2, HwType.L1, HwType.CORE, HwType.PU};

    /** A piece with PUs another JVM claims: busier than any load, so taken last. */
    static final double CLAIMED = 2;

    /**
     * Busy pieces whose loads differ by less than this are alike as far as a short window can tell
     * (a tick and a half in a first pool's 80 ms window): which of them a pool takes is the JVM's
     * turn ({@link #choose}), so that two JVMs starting together, each seeing the other's start-up
     * everywhere, take different ones (two such JVMs read 51 % and 49 %, 60 % and 51 %, and both
     * took the second PU).
     */
    static final double ALIKE = 0.15;

    /**
     * A piece's weight for {@link #choose}: {@link #CLAIMED} where it has PUs of {@code claimed},
     * else others' load on it with evidence ({@link PuLoad#evident}), 0 without a view. A class,
     * not a lambda: a JVM's first plan is on a worker's start, and a lambda there spins a class.
     */
    record Weight(CpuSet claimed, PuLoad load) implements ToDoubleFunction<CpuSet> {
        @Override
        public double applyAsDouble(CpuSet piece) {
            return piece.intersects(claimed) ? CLAIMED : load == null ? 0 : load.evident(piece);
        }
    }

    /**
     * The plan with its tasks on idle pieces, where the structural plan puts one on a busy piece;
     * the plan itself otherwise, and for explicit piece numbers. {@code load}: a piece's load
     * from others, 0 to 1, or {@link #CLAIMED}.
     */
    static EnginePlanner.Plan choose(Topology topology, PlacementSpec policy, int tasks, EnginePlanner.Plan plan, ToDoubleFunction<CpuSet> load) {
        return choose(topology, policy, tasks, plan, load, 0);
    }

    /** {@link #choose}, busy pieces of alike load taken from the {@code turn}-th on (mod the pieces): a JVM's own turn. */
    static EnginePlanner.Plan choose(Topology topology, PlacementSpec policy, int tasks, EnginePlanner.Plan plan, ToDoubleFunction<CpuSet> load,
                                     int turn) {
        List<CpuSet> cut = plan.cut();
        int n = cut.size();
        int k = usedCount(plan);
        if (policy.ordinal() >= 0 || k == 0 || k == n) return plan;
        boolean[] used = used(plan);
        double[] pieceLoad = new double[n];
        boolean usesBusy = false;
        for (int j = 0; j < n; j++) {
            pieceLoad[j] = load.applyAsDouble(cut.get(j));
            usesBusy |= used[j] && busy(pieceLoad[j]);
        }
        if (!usesBusy) return plan;
        int[] chosen = policy.color() == Color.PACKED ? packed(topology, cut, pieceLoad, k, turn) : idleFirst(pieceLoad, k, turn);
        return EnginePlanner.onPieces(topology, plan, policy, tasks, chosen);
    }

    /** A piece others keep at least {@link PuLoad#BUSY} busy, on the mean over its PUs. */
    static boolean busy(double pieceLoad) {
        return pieceLoad >= PuLoad.BUSY;
    }

    /**
     * Whether the pool can take whole pieces of {@code plan}'s cut that no other JVM claims: the
     * policy leaves some pieces unused (no explicit piece number, fewer pieces used than cut) and
     * at least as many are free of {@code claimed} as the plan uses.
     */
    static boolean wholePiecesFree(PlacementSpec policy, EnginePlanner.Plan plan, CpuSet claimed) {
        int k = usedCount(plan);
        if (policy.ordinal() >= 0 || k == 0 || k == plan.cut().size()) return false;
        int free = 0;
        for (CpuSet c : plan.cut()) if (!c.intersects(claimed)) free++;
        return free >= k;
    }

    private static int usedCount(EnginePlanner.Plan plan) {
        int k = 0;
        for (boolean u : used(plan)) if (u) k++;
        return k;
    }

    /** The pieces some task of the plan holds. */
    static boolean[] used(EnginePlanner.Plan plan) {
        boolean[] used = new boolean[plan.cut().size()];
        for (CpuSet c : plan.perTask()) {
            if (c == null) continue;
            for (int j = 0; j < used.length; j++) if (c.intersects(plan.cut().get(j))) used[j] = true;
        }
        return used;
    }

    /**
     * For {@code packed}: the first {@code k} idle pieces of the smallest object (core, cache, NUMA
     * node, package, machine) that holds {@code k} idle pieces, the first such object in logical
     * order; with fewer idle pieces than {@code k}, {@link #idleFirst}.
     */
    private static int[] packed(Topology topology, List<CpuSet> cut, double[] pieceLoad, int k, int turn) {
        HwObject best = null;
        for (HwType type : CONTAINERS) {
            for (HwObject o : topology.objects(type)) {
                if (best != null && !smaller(o.cpuset(), best.cpuset())) continue;
                if (idleIn(o.cpuset(), cut, pieceLoad).size() >= k) best = o;
            }
        }
        if (best == null) return idleFirst(pieceLoad, k, turn);
        List<Integer> idle = idleIn(best.cpuset(), cut, pieceLoad);
        int[] out = new int[k];
        for (int i = 0; i < k; i++) out[i] = idle.get(i);
        return out;
    }

    /** Fewer PUs, or as many and earlier in logical order (a lower first PU). */
    private static boolean smaller(CpuSet a, CpuSet b) {
        return a.cardinality() < b.cardinality() || a.cardinality() == b.cardinality() && a.first() < b.first();
    }

    /** The idle pieces inside {@code within}, in order. */
    private static List<Integer> idleIn(CpuSet within, List<CpuSet> cut, double[] pieceLoad) {
        List<Integer> out = new ArrayList<>();
        for (int j = 0; j < cut.size(); j++) if (!busy(pieceLoad[j]) && within.containsAll(cut.get(j))) out.add(j);
        return out;
    }

    /**
     * Every idle piece when there are at least {@code k} (the color chooses among them), else the
     * idle ones and the least loaded busy ones up to {@code k} (of {@link #ALIKE} loads, the first
     * from the {@code turn}-th piece on); in order.
     */
    static int[] idleFirst(double[] pieceLoad, int k, int turn) {
        int n = pieceLoad.length;
        boolean[] take = new boolean[n];
        int taken = 0;
        for (int j = 0; j < n; j++) {
            if (!busy(pieceLoad[j])) {
                take[j] = true;
                taken++;
            }
        }
        while (taken < k) {
            int least = -1;
            for (int i = 0; i < n; i++) {
                int j = Math.floorMod(i + turn, n);
                if (!take[j] && (least < 0 || pieceLoad[j] < pieceLoad[least] - ALIKE)) least = j;
            }
            take[least] = true;
            taken++;
        }
        int[] out = new int[taken];
        for (int j = 0, i = 0; j < n; j++) if (take[j]) out[i++] = j;
        return out;
    }
}
