package io.qv4j.api;

import io.qv4j.topology.HwType;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A pool's placement policy in code, for {@link QvExecutors}: {@code PlacementSpec.splitAt(HwType.CORE).color(Color.SPREAD)},
 * {@code PlacementSpec.split(4).ordinal(1)}. Immutable.
 */
public final class PlacementSpec {

    private final HwType splitAt;
    private final int split;
    private final Color color;
    private final int ordinal;

    private PlacementSpec(HwType splitAt, int split, Color color, int ordinal) {
        if (split < 0) throw new IllegalArgumentException("split must be >= 0: " + split);
        if (splitAt != null && splitAt.isDevice()) throw new IllegalArgumentException("split-at must be a CPU object type: " + splitAt);
        this.splitAt = Objects.requireNonNull(splitAt, "splitAt");
        this.split = split;
        this.color = Objects.requireNonNull(color, "color");
        this.ordinal = ordinal;
    }

    /** One piece per object of {@code type}, color SPREAD. */
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

    public int split() {
        return split;
    }

    public Color color() {
        return color;
    }

    public int ordinal() {
        return ordinal;
    }

    /** Task {@code i}'s cpus of {@code tasks}, cut from {@code scope} (empty = no piece). */
    public List<Optional<Scope>> plan(Scope scope, int tasks) {
        Split s = split > 0 ? scope.split(split) : scope.splitAt(splitAt);
        if (ordinal < 0) return s.tasks(tasks, color);
        int[] ord = new int[tasks];
        java.util.Arrays.fill(ord, ordinal);
        return new ArrayList<>(s.tasksByOrdinal(ord));
    }

    @Override
    public String toString() {
        return (split > 0 ? "split=" + split : "split-at=" + splitAt.shortName()) + " "
                + (ordinal >= 0 ? "color=" + ordinal : "color=" + color.name().toLowerCase(java.util.Locale.ROOT));
    }
}
