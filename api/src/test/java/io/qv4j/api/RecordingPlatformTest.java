package io.qv4j.api;

import io.qv4j.api.RecordingPlatform.Event;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;
import io.qv4j.topology.TopologyBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RecordingPlatformTest {

    private final Topology topology = new TopologyBuilder("test")
            .online(CpuSet.range(0, 7)).allowed(CpuSet.range(0, 5)).build();
    private final RecordingPlatform platform = new RecordingPlatform(topology);
    private final String me = Thread.currentThread().getName();

    @AfterEach
    void uninstall() {
        Platform.install(null);
    }

    @Test
    void discoverReturnsTheTopology() {
        assertSame(topology, platform.discover());
    }

    @Test
    void unboundThreadIsOnTheAllowedSet() {
        assertEquals(CpuSet.range(0, 5), platform.currentBinding());
    }

    @Test
    void nestedBindingsPushAndPop() {
        try (Binding outer = platform.bind(CpuSet.range(0, 3))) {
            assertEquals(CpuSet.range(0, 3), outer.cpuset());
            assertEquals(CpuSet.range(0, 3), platform.currentBinding());
            try (Binding inner = platform.bind(CpuSet.of(2))) {
                assertEquals(inner.cpuset(), platform.currentBinding());
            }
            assertEquals(CpuSet.range(0, 3), platform.currentBinding());
        }
        assertEquals(CpuSet.range(0, 5), platform.currentBinding());
        assertEquals(List.of(new Event(me, CpuSet.range(0, 3)), new Event(me, CpuSet.of(2)),
                new Event(me, CpuSet.range(0, 3)), new Event(me, CpuSet.range(0, 5))), platform.history());
    }

    @Test
    void closingAnOuterBindingFirstAlsoEndsTheInnerOnesAndLaterClosesAreHarmless() {
        Binding outer = platform.bind(CpuSet.range(0, 3));
        Binding inner = platform.bind(CpuSet.of(1));
        outer.close();
        assertEquals(CpuSet.range(0, 5), platform.currentBinding());
        inner.close();
        outer.close();
        assertEquals(CpuSet.range(0, 5), platform.currentBinding());
        assertEquals(3, platform.history().size(), platform.history().toString());
    }

    @Test
    void closingTwiceDoesNotPopABindingMadeInBetween() {
        Binding first = platform.bind(CpuSet.of(0));
        first.close();
        try (Binding second = platform.bind(CpuSet.of(4))) {
            first.close();
            assertEquals(second.cpuset(), platform.currentBinding());
        }
    }

    @Test
    void bindingsArePerThreadAndCloseActsOnTheThreadThatBound() throws Exception {
        Binding mine = platform.bind(CpuSet.of(3));
        AtomicReference<CpuSet> seenThere = new AtomicReference<>();
        Thread other = new Thread(() -> {
            seenThere.set(platform.currentBinding());
            mine.close(); // closes this test thread's binding, not the other thread's (it has none)
        }, "other");
        other.start();
        other.join(5000);
        assertEquals(CpuSet.range(0, 5), seenThere.get());
        assertEquals(CpuSet.range(0, 5), platform.currentBinding());
        assertEquals(new Event(me, CpuSet.range(0, 5)), platform.history().get(1));
    }

    @Test
    void bindingOutsideTheAllowedSetIsRefusedNamingThePus() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> platform.bind(CpuSet.range(4, 7)));
        assertEquals("cannot bind to 4-7: PUs 6-7 are outside the allowed set 0-5", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> platform.bind(CpuSet.empty()));
        assertTrue(platform.history().isEmpty());
    }

    @Test
    void scopeBindGoesThroughTheInstalledPlatformAndCloseRestores() {
        Platform.install(platform);
        try (Binding outer = platform.bind(CpuSet.range(0, 1))) {
            try (Binding b = Scope.of(topology, CpuSet.range(2, 7)).bind()) {
                assertEquals(CpuSet.range(2, 5), b.cpuset()); // the scope keeps only allowed PUs
                assertEquals(CpuSet.range(2, 5), platform.currentBinding());
            }
            assertEquals(outer.cpuset(), platform.currentBinding());
        }
    }
}
