package io.qv4j.agent.config;

import io.qv4j.api.Color;
import io.qv4j.api.Kind;
import io.qv4j.api.Memory;
import io.qv4j.api.PlacementSpec;
import io.qv4j.topology.HwType;

/**
 * A pool's policy from a rule or an annotation: only what was written; the rest comes from the
 * options' policy ({@link #resolve}).
 *
 * @param splitAt null = not given
 * @param split   0 = not given
 * @param color   null = not given
 * @param ordinal -1 = not given; else every worker on this piece
 * @param kind    null = not given
 * @param efficiency -1 = not given; else only the CPU kind of this efficiency rank
 * @param exclusive null = not given; true: the workers get cores of their own (DESIGN.md §7.2)
 * @param memory  null = not given; where the workers' new pages go (DESIGN.md §7.3)
 * @param source  what it came from, for {@code verbose} and the report: {@code rule io (qv.properties:3)}
 */
public record Policy(HwType splitAt, int split, Color color, int ordinal, Kind kind, int efficiency, Boolean exclusive, Memory memory, String source) {

    /** Whether the pool's workers get cores of their own: as written, else {@code defaults}. */
    public boolean exclusive(boolean defaults) {
        return exclusive != null ? exclusive : defaults;
    }

    /** Where the pool's workers' new pages go: as written, else {@code defaults}. */
    public Memory memory(Memory defaults) {
        return memory != null ? memory : defaults;
    }

    /** The effective policy: given values over the defaults'; split-at given and split not means split-at. */
    public PlacementSpec resolve(PlacementSpec defaults) {
        PlacementSpec p = split > 0 ? PlacementSpec.split(split)
                : PlacementSpec.splitAt(splitAt != null ? splitAt : defaults.splitAt());
        if (split == 0 && splitAt == null && defaults.split() > 0) p = PlacementSpec.split(defaults.split());
        p = p.color(color != null ? color : defaults.color());
        if (ordinal >= 0) p = p.ordinal(ordinal);
        else if (color == null && defaults.ordinal() >= 0) p = p.ordinal(defaults.ordinal());
        if (efficiency >= 0) return p.kind(efficiency);
        return kind != null ? p.kind(kind) : p.kindOf(defaults);
    }
}
