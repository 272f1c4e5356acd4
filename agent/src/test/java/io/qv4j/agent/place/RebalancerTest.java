package io.qv4j.agent.place;

import io.qv4j.api.Scope;
import io.qv4j.topology.Topology;
import io.qv4j.topology.SyntheticSpec;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The rebalance decision: loads and current shares → new weights or keep (null). */
class RebalancerTest {

    @Test
    void busyAgainstIdleResplitsByLoad() {
        assertArrayEquals(new double[] {0, 1}, Rebalancer.decide(new double[] {0, 2e8}, new double[] {0.5, 0.5}, 0.2), 1e-12);
        assertArrayEquals(new double[] {0.25, 0.75}, Rebalancer.decide(new double[] {1, 3}, new double[] {0.5, 0.5}, 0.2), 1e-12);
    }

    @Test
    void hysteresisKeepsASplitCloseToTheLoads() {
        assertNull(Rebalancer.decide(new double[] {1, 1}, new double[] {0.5, 0.5}, 0.2));
        assertNull(Rebalancer.decide(new double[] {1.3, 0.7}, new double[] {0.5, 0.5}, 0.2)); // 0.15 off
        assertNull(Rebalancer.decide(new double[] {0, 5}, new double[] {1 / 16.0, 15 / 16.0}, 0.2)); // after a re-split
        // exactly at the threshold is not above it
        assertNull(Rebalancer.decide(new double[] {0.7, 0.3}, new double[] {0.5, 0.5}, 0.25));
        assertArrayEquals(new double[] {0.7, 0.3}, Rebalancer.decide(new double[] {0.7, 0.3}, new double[] {0.5, 0.5}, 0.19), 1e-12);
    }

    @Test
    void loadsThatFlipMoveTheSplitBack() {
        assertArrayEquals(new double[] {1, 0}, Rebalancer.decide(new double[] {4, 0}, new double[] {1 / 16.0, 15 / 16.0}, 0.2), 1e-12);
    }

    @Test
    void threePoolsAnyOneFarOffTriggers() {
        double[] w = Rebalancer.decide(new double[] {1, 1, 2}, new double[] {0.5, 0.25, 0.25}, 0.2);
        assertArrayEquals(new double[] {0.25, 0.25, 0.5}, w, 1e-12);
        assertNull(Rebalancer.decide(new double[] {1, 1, 1}, new double[] {0.4, 0.3, 0.3}, 0.2));
    }

    @Test
    void noDecisionWithoutInformation() {
        assertNull(Rebalancer.decide(new double[] {0, 0}, new double[] {0.5, 0.5}, 0.2), "no load at all");
        assertNull(Rebalancer.decide(new double[] {5}, new double[] {1}, 0.2), "one pool");
        assertNull(Rebalancer.decide(new double[] {}, new double[] {}, 0.2));
        assertNull(Rebalancer.decide(new double[] {-1, 0}, new double[] {0.5, 0.5}, 0.2), "negative counts as 0");
        assertThrows(IllegalArgumentException.class, () -> Rebalancer.decide(new double[] {1, 2}, new double[] {1}, 0.2));
    }

    /** The weights go to Scope.splitWeighted: an idle pool still gets one core, the busy one the rest. */
    @Test
    void theWeightsGiveEveryPoolAtLeastOneCore() {
        Topology t = SyntheticSpec.parse("package:1 core:16 pu:1");
        double[] w = Rebalancer.decide(new double[] {0, 2e8}, new double[] {0.5, 0.5}, 0.2);
        var pieces = Scope.of(t).splitWeighted(w).pieces();
        assertEquals("0", pieces.get(0).cpuset().toString());
        assertEquals("1-15", pieces.get(1).cpuset().toString());
    }
}
