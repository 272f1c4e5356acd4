package io.qv4j.agent.place;

import org.junit.jupiter.api.Test;

import java.util.concurrent.ForkJoinPool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** A pool's name in the report before its first worker started. */
class PoolNameTest {

    @Test
    void theIdleCommonPoolGoesByItsName() {
        Pool p = new Pool(1, ForkJoinPool.commonPool(), Eligibility.Origin.JDK, Eligibility.Creator.UNKNOWN);
        assertEquals("ForkJoinPool.commonPool", p.name(), "not 'pool null' in status");
    }

    @Test
    void anotherPoolHasNoNameBeforeItsFirstWorker() {
        ForkJoinPool fj = new ForkJoinPool(1);
        try {
            assertNull(new Pool(2, fj, Eligibility.Origin.APPLICATION, Eligibility.Creator.UNKNOWN).name());
        } finally {
            fj.shutdown();
        }
    }
}
