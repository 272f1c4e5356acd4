package io.qv4j.api;

import io.qv4j.topology.HwType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * A placement policy: how a scope is cut ({@code split-at=TYPE} or {@code split=N}) and how tasks
 * map onto the pieces (a {@link Color} or one piece number for every task). The one policy value of
 * qv4j: the agent's options, rules and annotations resolve to it, {@link QvExecutors} takes it, and
 * {@link #assign} is the one split-and-map they all call. Immutable;
 * {@code PlacementSpec.splitAt(HwType.CORE).color(Color.SPREAD)}, {@code PlacementSpec.split(4).ordinal(1)}.
 */
public final class PlacementSpec {

    private final HwType splitAt;
    private final int split;
    private final Color color;
    private final int ordinal;

    private PlacementSpec(HwType splitAt, int split, Color color, int ordinal) {
        if (split < 0) throw new IllegalArgumentException("split must be >= 0: " + split);
        if (color == Color.UNDEFINED) throw new IllegalArgumentException("color UNDEFINED places no task: not a placement policy");
        this.splitAt = Objects.requireNonNull(splitAt, "splitAt");
        this.split = split;
        this.color = Objects.requireNonNull(color, "color");
        this.ordinal = ordinal;
    }

    /** One piece per object of {@code type} (a CPU object, or GPU/NIC: one piece per device's locality), color SPREAD. */
    public static PlacementSpec splitAt(HwType type) {
        return new PlacementSpec(type, 0, Color.SPREAD, -1);
    }

    /** {@code pieces} regular pieces, color SPREAD. */
    public static PlacementSpec split(int pieces) {
        if (pieces < 1) throw new IllegalArgumentException("pieces must be >= 1: " + pieces);
        return new PlacementSpec(HwType.CORE, pieces, Color.SPREAD, -1);
    }

    /** The policy an annotation describes, with its declared defaults for elements not written. */
    public static PlacementSpec of(Placement p) {
        return new PlacementSpec(p.splitAt(), p.split(), p.color(), p.ordinal());
    }

    /** How tasks map onto the pieces (clears a piece number). */
    public PlacementSpec color(Color c) {
        return new PlacementSpec(splitAt, split, c, -1);
    }

    /** Every task on piece {@code piece}. */
    public PlacementSpec ordinal(int piece) {
        if (piece < 0) throw new IllegalArgumentException("ordinal must be >= 0: " + piece);
        return new PlacementSpec(splitAt, split, color, piece);
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

    /** The pieces this policy cuts {@code scope} into. */
    public Split cut(Scope scope) {
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
        return o instanceof PlacementSpec p && p.splitAt == splitAt && p.split == split && p.color == color && p.ordinal == ordinal;
    }

    @Override
    public int hashCode() {
        return ((splitAt.ordinal() * 31 + split) * 31 + color.ordinal()) * 31 + ordinal;
    }

    /** {@code split-at=core color=spread}, {@code split=4 color=1}: the words options and rules use. */
    @Override
    public String toString() {
        return (split > 0 ? "split=" + split : "split-at=" + splitAt.shortName()) + " color="
                + (ordinal >= 0 ? String.valueOf(ordinal) : color.name().toLowerCase(Locale.ROOT));
    }
}
