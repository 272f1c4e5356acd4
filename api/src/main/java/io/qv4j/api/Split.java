package io.qv4j.api;

import java.util.List;
import java.util.Optional;

/**
 * The pieces of a scope and the mapping of tasks onto them by color (DESIGN.md §4.3).
 * Immutable and pure: the same call gives the same answer.
 */
public final class Split {

    private final List<Scope> pieces;

    Split(List<Scope> pieces) {
        this.pieces = List.copyOf(pieces);
    }

    /** The pieces in logical order. */
    public List<Scope> pieces() {
        return pieces;
    }

    /** The piece of task {@code rank} among {@code tasks} tasks ordered by rank; empty for UNDEFINED. */
    public Optional<Scope> task(int rank, int tasks, Color color) {
        throw new UnsupportedOperationException("TODO");
    }

    /** Every task's piece at once, tasks ordered by rank. */
    public List<Optional<Scope>> tasks(int tasks, Color color) {
        throw new UnsupportedOperationException("TODO");
    }

    /** Every task's piece, tasks ordered by {@code (keys[i], i)} as in {@code MPI_Comm_split}. */
    public List<Optional<Scope>> tasks(int[] keys, Color color) {
        throw new UnsupportedOperationException("TODO");
    }

    /**
     * Explicit colors: task {@code i} goes to piece {@code ordinals[i]}; a negative ordinal means
     * UNDEFINED. Devices of a piece shared by several tasks are dealt among them in task order.
     */
    public List<Optional<Scope>> tasksByOrdinal(int[] ordinals) {
        throw new UnsupportedOperationException("TODO");
    }
}
