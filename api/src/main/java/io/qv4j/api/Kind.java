package io.qv4j.api;

/**
 * Which CPU kinds a placement uses on a hybrid machine (P- and E-cores, big.LITTLE; DESIGN.md
 * §4.5). One kind by its efficiency rank is chosen with an {@code int} instead
 * ({@link PlacementSpec#kind(int)}, {@link Placement#efficiency()}). On a machine of one kind all
 * of these place alike.
 */
public enum Kind {
    /** The most performant kind while its pieces hold the pool; a larger pool uses every kind, faster kinds' pieces first. */
    AUTO,
    /** Only the most performant kind in the scope. */
    PERFORMANCE,
    /** Only the most energy-efficient kind in the scope (efficiency 0). */
    EFFICIENCY,
    /** Every kind, cut as if all cores were alike. */
    ANY
}
