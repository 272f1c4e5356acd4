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
 * bound the process (then that binding is the scope). Pure: binding the process is
 * {@link ProcessAffinity}'s job.
 *
 * @param scope    the JVM's scope
 * @param messages what to tell the user at the default level ({@code qv:} lines)
 * @param detail   how the scope was found, for the verbose line and the report
 * @param launcherBound true when the launcher's binding was taken as the scope
 * @param shared   true when other local ranks get the same PUs (more ranks than pieces)
 */
public record LauncherScope(CpuSet scope, List<String> messages, String detail, boolean launcherBound, boolean shared) {

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
            return new LauncherScope(base, messages, detail.toString(), false, false);
        }
        String who = "local rank " + rank.rank() + "/" + rank.size() + " (" + rank.source() + ")";
        if (rank.launcherBound() && !allowed.equals(topology.online()) && topology.online().containsAll(allowed)) {
            messages.add(who + ": the launcher already bound this process to pus " + allowed
                    + ": that is the JVM scope, not split again");
            return new LauncherScope(base, messages, who + ": launcher binding pus " + base, true, false);
        }
        CpuSet piece;
        boolean shared;
        String how;
        Scope s = Scope.of(topology, base);
        if (splitAt == null) {
            int[] ones = new int[rank.size()];
            Arrays.fill(ones, 1);
            List<Scope> shares = s.shares(ones);
            piece = shares.get(rank.rank()).cpuset();
            shared = rank.size() > base.cardinality();
            how = "balanced split of pus " + base;
        } else {
            Split split = s.splitAt(splitAt);
            piece = split.task(rank.rank(), rank.size(), Color.AUTO).map(Scope::cpuset).orElse(base);
            shared = rank.size() > split.pieces().size();
            how = "rank-split-at=" + splitAt.shortName() + " of pus " + base + " (" + split.pieces().size() + " pieces)";
        }
        if (shared) {
            messages.add(who + ": " + rank.size() + " local ranks on " + base.cardinality() + " PUs (oversubscribed): this JVM shares pus "
                    + piece + " with other ranks");
        }
        return new LauncherScope(piece, messages, who + ": pus " + piece + ", " + how, false, shared);
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
