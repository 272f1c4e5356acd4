package io.qv4j.agent.place;

import io.qv4j.agent.load.LoadMeter;
import io.qv4j.agent.load.PuLoad;

/** Where the busy-neighbours watcher's readings come from ({@link Neighbours}): the live machine's {@link LoadMeter}, or a test's. */
interface NeighbourReadings {

    /** The period since the last call, with the waits of threads {@code tids}; null the first time or when nothing can be read. */
    PuLoad next(long[] tids);

    /** The short time since the last {@link #next}, to see a target is still idle; null when unknown. */
    PuLoad since();

    /** Thread {@code tid}'s time waiting on a run queue so far, in nanoseconds (no ticks); -1 when unknown. */
    long waitedNanos(long tid);

    /** Watching pauses: the next {@link #next} starts afresh. */
    void reset();

    /** The live machine's, through {@code meter}; each period's reading is also offered to the plans' views of the load. */
    static NeighbourReadings live(LoadMeter meter) {
        return new NeighbourReadings() {
            private LoadMeter.Sample last;

            @Override
            public PuLoad next(long[] tids) {
                LoadMeter.Sample now = meter.sample(tids);
                meter.offer(now);
                LoadMeter.Sample before = last;
                last = now;
                return before == null || now == null ? null : PuLoad.between(before, now);
            }

            @Override
            public PuLoad since() {
                LoadMeter.Sample now = meter.sample(null);
                return last == null || now == null ? null : PuLoad.between(last, now);
            }

            @Override
            public long waitedNanos(long tid) {
                return meter.waitedNanos(tid);
            }

            @Override
            public void reset() {
                last = null;
            }
        };
    }
}
