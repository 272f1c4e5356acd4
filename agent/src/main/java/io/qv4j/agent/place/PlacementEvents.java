package io.qv4j.agent.place;

/**
 * What placement tells observers above it (status, Flight Recorder, JMX): each call is cheap and
 * never throws. {@link #NONE} until the agent wires one in.
 */
public interface PlacementEvents {

    /** A pool's slots were planned (first worker, or again after a resize). */
    void planned(Pool p);

    /** A worker was bound (or, {@code binds} false, placed without binding: dry run). */
    void placed(Pool p, Worker w, boolean binds);

    /** A worker was not bound as planned; {@code reason} says why. */
    void refused(Pool p, Worker w, String reason);

    /** A worker left. */
    void changed();

    /** A rebalance re-split the JVM scope; {@code summary} is its verbose line. */
    void rebalanced(String summary, int pools);

    /** The neighbours watcher moved a waiting worker; {@code why} says how long it waited and where it went. */
    default void moved(Pool p, Worker w, String why) {
    }

    /** The neighbours watcher released a pool to its scope: every piece was held or busy. */
    default void released(Pool p, String why) {
    }

    PlacementEvents NONE = new PlacementEvents() {
        @Override
        public void planned(Pool p) {
        }

        @Override
        public void placed(Pool p, Worker w, boolean binds) {
        }

        @Override
        public void refused(Pool p, Worker w, String reason) {
        }

        @Override
        public void changed() {
        }

        @Override
        public void rebalanced(String summary, int pools) {
        }
    };
}
