package io.qv4j.agent.config;

import io.qv4j.agent.config.Options;
import io.qv4j.api.Color;
import io.qv4j.topology.HwType;

import java.util.Locale;

/**
 * A pool's policy from a rule or an annotation: only what was written; the rest comes from the
 * global options ({@link #resolve}).
 *
 * @param splitAt null = not given
 * @param split   0 = not given
 * @param color   null = not given
 * @param ordinal -1 = not given; else every worker on this piece
 * @param source  what it came from, for {@code verbose} and the report: {@code rule io (qv.properties:3)}
 */
public record Policy(HwType splitAt, int split, Color color, int ordinal, String source) {

    /** The effective policy: given values over the options' ones; split-at given and split not means split-at. */
    public Resolved resolve(Options o) {
        int sp = split > 0 ? split : splitAt != null ? 0 : o.split();
        HwType at = splitAt != null ? splitAt : o.splitAt();
        int ord = ordinal;
        Color c = color != null ? color : o.color();
        if (color != null && ordinal < 0) ord = -1;
        return new Resolved(at, sp, c, ord);
    }

    /** What the planner uses. */
    public record Resolved(HwType splitAt, int split, Color color, int ordinal) {

        public static Resolved of(Options o) {
            return new Resolved(o.splitAt(), o.split(), o.color(), -1);
        }

        @Override
        public String toString() {
            return (split > 0 ? "split=" + split : "split-at=" + splitAt.shortName()) + " color="
                    + (ordinal >= 0 ? String.valueOf(ordinal) : color.name().toLowerCase(Locale.ROOT));
        }
    }
}
