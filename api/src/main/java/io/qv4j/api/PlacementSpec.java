package io.qv4j.api;

import io.qv4j.topology.HwType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * A placement policy: how a scope is cut ({@code split-at=TYPE} or {@code split=N}), how tasks
 * map onto the pieces (a {@link Color} or one piece number for every task), and which CPU kinds
 * it uses on a hybrid machine (a {@link Kind} or one efficiency rank). The one policy value of
 * qv4j: the agent's options, rules and annotations resolve to it, {@link QvExecutors} takes it, and
 * {@link #assign} is the one split-and-map they all call. Immutable;
 * {@code PlacementSpec.splitAt(HwType.CORE).color(Color.SPREAD)}, {@code PlacementSpec.split(4).ordinal(1).kind(Kind.EFFICIENCY)}.
 */
public final class PlacementSpec {

    private final HwType splitAt;
    private final int split;
    private final Color color;
    private final int ordinal;
    private final Kind kind;
    private final int efficiency;

    private PlacementSpec(HwType splitAt, int split, Color color, int ordinal, Kind kind, int efficiency) {
        if (split < 0) throw new IllegalArgumentException("split must be >= 0: " + split);
        if (color == Color.UNDEFINED) throw new IllegalArgumentException("color UNDEFINED places no task: not a placement policy");
        this.splitAt = Objects.requireNonNull(splitAt, "splitAt");
        this.split = split;
        this.color = Objects.requireNonNull(color, "color");
        this.ordinal = ordinal;
        this.kind = Objects.requireNonNull(kind, "kind");
        this.efficiency = efficiency;
    }

    /** One piece per object of {@code type} (a CPU object, or GPU/NIC: one piece per device's locality), color SPREAD, kind AUTO. */
    public static PlacementSpec splitAt(HwType type) {
        return new PlacementSpec(type, 0, Color.SPREAD, -1, Kind.AUTO, -1);
    }

    /** {@code pieces} regular pieces, color SPREAD, kind AUTO. */
    public static PlacementSpec split(int pieces) {
        if (pieces < 1) throw new IllegalArgumentException("pieces must be >= 1: " + pieces);
        return new PlacementSpec(HwType.CORE, pieces, Color.SPREAD, -1, Kind.AUTO, -1);
    }

    /** The policy an annotation describes, with its declared defaults for elements not written. */
    public static PlacementSpec of(Placement p) {
        PlacementSpec s = new PlacementSpec(p.splitAt(), p.split(), p.color(), p.ordinal(), p.kind(), -1);
        return p.efficiency() >= 0 ? s.kind(p.efficiency()) : s;
    }

    /** How tasks map onto the pieces (clears a piece number). */
    public PlacementSpec color(Color c) {
        return new PlacementSpec(splitAt, split, c, -1, kind, efficiency);
    }

    /** Every task on piece {@code piece}. */
    public PlacementSpec ordinal(int piece) {
        if (piece < 0) throw new IllegalArgumentException("ordinal must be >= 0: " + piece);
        return new PlacementSpec(splitAt, split, color, piece, kind, efficiency);
    }

    /** Which CPU kinds the pieces are cut from (clears an efficiency rank). */
    public PlacementSpec kind(Kind k) {
        return new PlacementSpec(splitAt, split, color, ordinal, k, -1);
    }

    /** Only the PUs of the CPU kind of this efficiency rank (0 the most energy-efficient). */
    public PlacementSpec kind(int efficiency) {
        if (efficiency < 0) throw new IllegalArgumentException("efficiency must be >= 0: " + efficiency);
        return new PlacementSpec(splitAt, split, color, ordinal, Kind.AUTO, efficiency);
    }

    /** This policy with {@code other}'s choice of CPU kinds. */
    public PlacementSpec kindOf(PlacementSpec other) {
        return new PlacementSpec(splitAt, split, color, ordinal, other.kind, other.efficiency);
    }

    public HwType splitAt() {
        return splitAt;
    }

    /** The number of regular pieces; 0 = split at {@link #splitAt()}. */
    public int split() {
        return split;
    }

    public Color color() {
        return color;
    }

    /** The piece every task goes to; -1 = by {@link #color()}. */
    public int ordinal() {
        return ordinal;
    }

    /** The CPU kinds the pieces are cut from; {@link Kind#AUTO} when {@link #efficiency()} names one. */
    public Kind kind() {
        return kind;
    }

    /** The efficiency rank of the one CPU kind used; -1 = by {@link #kind()}. */
    public int efficiency() {
        return efficiency;
    }

    /**
     * The pieces this policy cuts {@code scope} into (DESIGN.md §4.5). With one kind chosen, that
     * kind's part is cut. With {@code AUTO} on a scope of several kinds, each kind's part is cut
     * on its own and the pieces are listed most performant kind first ({@link #assign} deals tasks
     * to the faster kinds first); a kind whose part cannot take the cut is left out, and if none
     * can, the whole scope is cut. Device splits (GPU, NIC) follow the devices' localities: there
     * {@code AUTO} is {@code ANY}.
     */
    public Split cut(Scope scope) {
        if (efficiency >= 0) return cutAll(scope.ofKind(efficiency));
        if (kind != Kind.AUTO || (split == 0 && splitAt.isDevice())) return cutAll(scope.ofKind(kind));
        List<Scope> parts = scope.kinds();
        if (parts.size() == 1) return cutAll(scope);
        List<Split> each = new ArrayList<>(parts.size());
        for (Scope part : parts) {
            try {
                each.add(cutAll(part));
            } catch (IllegalArgumentException e) {
                // this kind cannot take the cut (fewer PUs than pieces): the others can
            }
        }
        return each.isEmpty() ? cutAll(scope) : Split.byKind(each);
    }

    private Split cutAll(Scope scope) {
        return split > 0 ? scope.split(split) : scope.splitAt(splitAt);
    }

    /** Which piece(s) each of {@code tasks} tasks gets. */
    public List<Split.Assignment> assign(Split pieces, int tasks) {
        if (ordinal < 0) return pieces.assign(tasks, color);
        int[] ord = new int[tasks];
        Arrays.fill(ord, ordinal);
        return pieces.assignByOrdinal(ord, new int[tasks]);
    }

    /** Task {@code i}'s cpus of {@code tasks}, cut from {@code scope} (empty = no piece). */
    public List<Optional<Scope>> plan(Scope scope, int tasks) {
        List<Optional<Scope>> out = new ArrayList<>(tasks);
        for (Split.Assignment a : assign(cut(scope), tasks)) out.add(a.scope());
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PlacementSpec p && p.splitAt == splitAt && p.split == split && p.color == color && p.ordinal == ordinal
                && p.kind == kind && p.efficiency == efficiency;
    }

    @Override
    public int hashCode() {
        return ((((splitAt.ordinal() * 31 + split) * 31 + color.ordinal()) * 31 + ordinal) * 31 + kind.ordinal()) * 31 + efficiency;
    }

    /**
     * {@code split-at=core color=spread}, {@code split=4 color=1 kind=efficiency}: the words options
     * and rules use; {@code kind} only when it is not the default, {@code auto}.
     */
    @Override
    public String toString() {
        String k = efficiency >= 0 ? " kind=" + efficiency : kind == Kind.AUTO ? "" : " kind=" + kind.name().toLowerCase(Locale.ROOT);
        return (split > 0 ? "split=" + split : "split-at=" + splitAt.shortName()) + " color="
                + (ordinal >= 0 ? String.valueOf(ordinal) : color.name().toLowerCase(Locale.ROOT)) + k;
    }
}
