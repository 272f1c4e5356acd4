package io.qv4j.api;

/**
 * How tasks are mapped onto the pieces of a split when no explicit ordinal color is given
 * (DESIGN.md §4.3). An explicit piece is chosen with an {@code int} ordinal instead.
 */
public enum Color {
    /** Every piece used: each task gets a contiguous block of pieces. */
    AUTO,
    /** Task i on piece i; more tasks than pieces fill pieces in blocks. */
    PACKED,
    /** Tasks as far apart as possible in the hardware tree; more tasks than pieces go round robin. */
    SPREAD,
    /** No piece: the task's result is empty, like {@code MPI_COMM_NULL}. */
    UNDEFINED
}
