package io.qv4j.agent.node;

import io.qv4j.api.Color;
import io.qv4j.topology.HwType;
import io.qv4j.api.Scope;
import io.qv4j.api.Split;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.Topology;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The JVM's scope on a node shared with other JVMs (DESIGN.md §7): the allowed set, shrunk to the
 * CPU quota when asked, then this JVM's piece of it by local rank, unless the launcher already
 * bound the process (then that binding is the scope), the launcher was told not to bind (the
 * user's off switch: the allowed set is the scope), or there are more local ranks than PUs to give
 * them (oversubscribed: ranks are left unbound, as Open MPI does). On a hybrid machine the
 * balanced split shares out each CPU kind's PUs on its own, so every rank gets fast and slow cores
 * alike. Pure: binding the process is
 * {@link ProcessAffinity}'s job.
 *
 * @param scope    the JVM's scope
 * @param messages what to tell the user at the default level ({@code qv:} lines)
 * @param detail   how the scope was found, for the verbose line and the report
 * @param decision what was done with the launcher's ranks
 * @param shared   true when other local ranks get pieces overlapping this one (more ranks than
 *                 pieces of a {@code rank-split-at} type, each piece still with a PU per rank)
 */
public record LauncherScope(CpuSet scope, List<String> messages, String detail, Decision decision, boolean shared) {

    /** What the launcher's ranks made of the JVM's scope; {@link #word()} is the report's value. */
    public enum Decision {
        /** No launcher, or a single local rank: the allowed set. */
        NONE("none"),
        /** The allowed set split among the local ranks; this JVM's piece applied to the whole process. */
        SPLIT("split"),
        /** The launcher bound the process: that binding is the scope, not split again. */
        BOUND_BY_LAUNCHER("bound-by-launcher"),
        /** The launcher was told not to bind ({@code --bind-to none}, {@code --cpu-bind=none}): the allowed set, unbound. */
        UNBOUND_LAUNCHER_NONE("unbound-launcher-none"),
        /** More local ranks than PUs: the allowed set, unbound. */
        UNBOUND_OVERSUBSCRIBED("unbound-oversubscribed");

        private final String word;

        Decision(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }
    }

    /** The launcher's binding was taken as the scope. */
    public boolean launcherBound() {
        return decision == Decision.BOUND_BY_LAUNCHER;
    }

    /** More local ranks than PUs: ranks left unbound. */
    public boolean oversubscribed() {
        return decision == Decision.UNBOUND_OVERSUBSCRIBED;
    }

    public static LauncherScope compute(Topology topology, CpuSet allowed, LocalRank rank, HwType splitAt, Double quota, boolean respectQuota) {
        List<String> messages = new ArrayList<>();
        CpuSet base = allowed;
        StringBuilder detail = new StringBuilder();
        if (quota != null && quota < allowed.cardinality()) {
            int n = (int) Math.ceil(quota - 1e-9);
            if (respectQuota) {
                base = firstLogical(topology, allowed, Math.max(1, n));
                messages.add("CPU quota " + fmt(quota) + " CPUs < " + allowed.cardinality() + " allowed PUs (" + allowed
                        + "): respect-quota=true, JVM scope shrunk to pus " + base);
            } else {
                messages.add("CPU quota " + fmt(quota) + " CPUs < " + allowed.cardinality() + " allowed PUs (" + allowed
                        + "): pools are planned on all allowed PUs; respect-quota=true would use " + Math.max(1, n));
            }
        }
        if (rank == null || rank.size() <= 1) {
            detail.append(rank == null ? "no launcher" : "local rank 0/1 (" + rank.source() + ")").append(": pus ").append(base);
            return new LauncherScope(base, messages, detail.toString(), Decision.NONE, false);
        }
        String who = "local rank " + rank.rank() + "/" + rank.size() + " (" + rank.source() + ")";
        if (rank.launcherBound() && !allowed.equals(topology.online()) && topology.online().containsAll(allowed)) {
            messages.add(who + ": the launcher already bound this process to pus " + allowed
                    + ": that is the JVM scope, not split again");
            return new LauncherScope(base, messages, who + ": launcher binding pus " + base, Decision.BOUND_BY_LAUNCHER, false);
        }
        if (rank.noBinding() != null) {
            return new LauncherScope(base, messages, who + ": the launcher was told not to bind (" + rank.noBinding()
                    + "): pus " + base + ", the process is not bound, not split among ranks; pools still avoid PUs other JVMs claim",
                    Decision.UNBOUND_LAUNCHER_NONE, false);
        }
        if (rank.size() > base.cardinality()) {
            messages.add(who + ": " + rank.size() + " local ranks on " + base.cardinality() + " PUs (oversubscribed): this process is left unbound"
                    + " (JVM scope: all allowed pus " + base + "), as Open MPI leaves oversubscribed ranks");
            return new LauncherScope(base, messages, who + ": oversubscribed, unbound, pus " + base, Decision.UNBOUND_OVERSUBSCRIBED, false);
        }
        CpuSet piece;
        boolean shared;
        String how;
        Scope s = Scope.of(topology, base);
        if (splitAt == null) {
            int[] ones = new int[rank.size()];
            Arrays.fill(ones, 1);
            // on a hybrid machine each rank gets its share of every kind, when each kind has a PU per rank
            List<Scope> parts = s.kinds();
            for (Scope part : parts) if (part.cpuset().cardinality() < rank.size()) parts = List.of(s);
            piece = CpuSet.empty();
            for (Scope part : parts) piece = piece.or(part.shares(ones).get(rank.rank()).cpuset());
            shared = false;
            how = "balanced split of pus " + base + (parts.size() > 1 ? ", each CPU kind's PUs shared out on their own" : "");
        } else {
            Split split = s.splitAt(splitAt);
            piece = split.task(rank.rank(), rank.size(), Color.AUTO).map(Scope::cpuset).orElse(base);
            shared = rank.size() > split.pieces().size();
            how = "rank-split-at=" + splitAt.shortName() + " of pus " + base + " (" + split.pieces().size() + " pieces)";
            if (shared) {
                // Ranks that share a piece must each still have a PU of it: else the node is oversubscribed.
                java.util.Map<CpuSet, Integer> per = new java.util.HashMap<>();
                for (int r = 0; r < rank.size(); r++) {
                    per.merge(split.task(r, rank.size(), Color.AUTO).map(Scope::cpuset).orElse(base), 1, Integer::sum);
                }
                for (java.util.Map.Entry<CpuSet, Integer> e : per.entrySet()) {
                    if (e.getValue() > e.getKey().cardinality()) {
                        messages.add(who + ": " + rank.size() + " local ranks on " + split.pieces().size() + " " + splitAt.shortName()
                                + " pieces, " + e.getValue() + " ranks on the " + e.getKey().cardinality() + " PUs of pus " + e.getKey()
                                + " (oversubscribed): this process is left unbound (JVM scope: all allowed pus " + base + ")");
                        return new LauncherScope(base, messages, who + ": oversubscribed, unbound, pus " + base, Decision.UNBOUND_OVERSUBSCRIBED, false);
                    }
                }
            }
        }
        return new LauncherScope(piece, messages, who + ": pus " + piece + ", " + how, Decision.SPLIT, shared);
    }

    /** The first {@code n} PUs of {@code set} in logical order (whole cores first: a core's PUs are adjacent). */
    static CpuSet firstLogical(Topology topology, CpuSet set, int n) {
        CpuSet out = CpuSet.empty();
        int k = 0;
        for (HwObject pu : topology.pus()) {
            if (k >= n) break;
            if (set.contains(pu.osIndex())) {
                out = out.or(CpuSet.of(pu.osIndex()));
                k++;
            }
        }
        return out.isEmpty() ? set : out;
    }

    static String fmt(double q) {
        return q == Math.rint(q) ? String.valueOf((long) q) : String.format(java.util.Locale.ROOT, "%.2f", q);
    }
}
