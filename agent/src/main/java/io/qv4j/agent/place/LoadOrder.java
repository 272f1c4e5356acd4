package io.qv4j.agent.place;

import io.qv4j.agent.load.PuLoad;
import io.qv4j.topology.CpuSet;

import java.util.ArrayList;
import java.util.List;

/**
 * Which of a split's pieces a pool that leaves some unused takes (DESIGN.md §7.1): the policy's
 * choice turned round the pieces (piece {@code j} becomes {@code j + r}), by the turn {@code r} that
 * puts the least of others' work under the tasks; among equal turns, the one that leaves the first
 * task on the PU its thread runs on now (where the kernel, which sees every runnable thread, just
 * put it), else the first from this JVM's own offset. So a spread pool stays spread, and two JVMs
 * that cannot see each other's claims and plan at the same moment do not both start at piece 0. Pure.
 */
final class LoadOrder {

    private LoadOrder() {
    }

    /**
     * The plan turned round its pieces; the plan itself when every piece is used (no turn changes
     * what is covered) or when a task's cpuset is not a union of pieces.
     *
     * @param load   others' work on each PU, or null (only the tie-breaks decide)
     * @param here   the PU the planning thread runs on, or -1
     * @param offset this JVM's own tie-break, any int
     */
    static EnginePlanner.Plan turn(EnginePlanner.Plan plan, PuLoad load, int here, int offset) {
        List<CpuSet> cut = plan.cut();
        int n = cut.size();
        if (n < 2) return plan;
        List<int[]> tasks = new ArrayList<>(plan.perTask().size());
        boolean[] used = new boolean[n];
        for (CpuSet c : plan.perTask()) {
            int[] pieces = c == null ? new int[0] : piecesOf(c, cut);
            if (pieces == null) return plan;
            for (int j : pieces) used[j] = true;
            tasks.add(pieces);
        }
        int unused = 0;
        for (boolean u : used) if (!u) unused++;
        if (unused == 0) return plan;
        double[] pieceLoad = new double[n];
        for (int j = 0; j < n; j++) {
            double l = load == null ? 0 : load.mean(cut.get(j));
            pieceLoad[j] = l < PuLoad.IDLE ? 0 : l; // below that, noise: an idle machine leaves the choice to the offset
        }
        int start = Math.floorMod(offset, n);
        int best = start;
        double bestCost = Double.MAX_VALUE;
        for (int k = 0; k < n; k++) {
            int r = (start + k) % n;
            double cost = 0;
            for (int[] t : tasks) for (int j : t) cost += pieceLoad[(j + r) % n];
            boolean better = cost < bestCost - 1e-9
                    || cost < bestCost + 1e-9 && here >= 0 && !onHere(tasks, cut, best, here) && onHere(tasks, cut, r, here);
            if (better) {
                bestCost = cost;
                best = r;
            }
        }
        if (best == 0) return plan;
        List<CpuSet> out = new ArrayList<>(tasks.size());
        for (int[] t : tasks) {
            if (t.length == 0) {
                out.add(null);
                continue;
            }
            CpuSet c = CpuSet.empty();
            for (int j : t) c = c.or(cut.get((j + best) % n));
            out.add(c);
        }
        return new EnginePlanner.Plan(cut, java.util.Collections.unmodifiableList(out));
    }

    /** Whether turn {@code r} puts the first task with a piece on a piece holding PU {@code here}. */
    private static boolean onHere(List<int[]> tasks, List<CpuSet> cut, int r, int here) {
        for (int[] t : tasks) {
            if (t.length == 0) continue;
            for (int j : t) if (cut.get((j + r) % cut.size()).contains(here)) return true;
            return false;
        }
        return false;
    }

    /** The pieces whose union is exactly {@code c}, or null when it is not such a union. */
    private static int[] piecesOf(CpuSet c, List<CpuSet> cut) {
        List<Integer> in = new ArrayList<>();
        CpuSet covered = CpuSet.empty();
        for (int j = 0; j < cut.size(); j++) {
            if (cut.get(j).intersects(c)) {
                if (!c.containsAll(cut.get(j))) return null;
                in.add(j);
                covered = covered.or(cut.get(j));
            }
        }
        if (!covered.equals(c)) return null;
        int[] out = new int[in.size()];
        for (int i = 0; i < out.length; i++) out[i] = in.get(i);
        return out;
    }
}
