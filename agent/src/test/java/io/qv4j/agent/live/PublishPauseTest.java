package io.qv4j.agent.live;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** How long the status thread gathers changes before it publishes the report again. */
class PublishPauseTest {

    @Test
    void aCheapPublishIsFollowedByTheShortestPause() {
        assertEquals(Live.COALESCE_MILLIS, Live.pauseAfter(0));
        assertEquals(Live.COALESCE_MILLIS, Live.pauseAfter(2_000_000)); // 2 ms: 40 ms would be shorter
    }

    @Test
    void aDearPublishIsFollowedByAPauseThatKeepsTheThreadToItsShareOfAPu() {
        long publish = 30_000_000; // 30 ms, a cold JVM serialising a report of many ended pools
        long pause = Live.pauseAfter(publish);
        assertEquals(Live.PUBLISH_SHARE * 30L, pause);
        assertEquals(1.0 / Live.PUBLISH_SHARE, publish / 1e6 / pause, 1e-9);
    }

    @Test
    void aClockThatWentBackwardsGivesTheShortestPause() {
        assertEquals(Live.COALESCE_MILLIS, Live.pauseAfter(-5_000_000));
    }
}
