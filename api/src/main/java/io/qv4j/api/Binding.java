package io.qv4j.api;

import io.qv4j.topology.CpuSet;

/** A thread's binding to a set of PUs; {@link #close()} restores the binding it replaced. */
public interface Binding extends AutoCloseable {

    /** The PUs the thread was bound to. */
    CpuSet cpuset();

    /** Restores the previous binding of the thread that made this one. Never throws. */
    @Override
    void close();
}
