package io.qv4j.agent.place;

import io.qv4j.agent.config.Policy;
import io.qv4j.topology.CpuSet;

/** What the annotations say about pools made on this thread ({@link #NONE} without annotations); the placer asks, the annotations answer. */
public interface Annotated {
    /** The innermost {@code @Placement} in progress on this thread, or null. */
    Policy current();

    /** A pool was made on this thread (for a field assigned next). */
    void created(Object pool);

    /** The piece a {@code @Bind} call in progress on this thread holds, or null. */
    CpuSet piece();

    /** No annotations: nothing in progress, nothing to remember. */
    Annotated NONE = new Annotated() {
        @Override
        public Policy current() {
            return null;
        }

        @Override
        public void created(Object pool) {
        }

        @Override
        public CpuSet piece() {
            return null;
        }
    };
}
