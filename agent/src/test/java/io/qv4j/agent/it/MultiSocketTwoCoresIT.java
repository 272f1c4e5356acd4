package io.qv4j.agent.it;

import java.time.Duration;

/**
 * The second machine of the multi-socket issue: 2 packages x 2 NUMA nodes x 2 cores x 2 hardware
 * threads (16 PUs; nodes 0-3, 4-7, 8-11, 12-15), where a node, a core and a PU all differ. The
 * common checks only.
 */
class MultiSocketTwoCoresIT extends GuestMachineChecks {

    MultiSocketTwoCoresIT() {
        super(Guest.Shape.of(2, 2, 2, 2));
    }

    @Override
    Duration budget() {
        return Duration.ofMinutes(8);
    }

    @Override
    void more(GuestBatch b) {
        // nothing more
    }
}
