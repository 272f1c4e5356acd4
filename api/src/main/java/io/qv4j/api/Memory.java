package io.qv4j.api;

/**
 * Where a pool's workers' new memory pages go (option {@code memory}, DESIGN.md §7.3). Set by each
 * worker on itself as it is pinned, through the kernel's per-thread memory policy; pages already
 * touched stay where they are.
 */
public enum Memory {
    /** The kernel's default: a page goes to the node of the CPU that first touches it. */
    LOCAL,
    /** Each new page on the next node of the pool's pieces, round robin: a table every worker reads. */
    INTERLEAVE,
    /** Each new page on the nodes of the worker's own piece only: never far memory, even when they are full. */
    BIND
}
