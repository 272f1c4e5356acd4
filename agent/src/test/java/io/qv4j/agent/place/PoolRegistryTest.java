package io.qv4j.agent.place;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PoolRegistryTest {

    private static ThreadPoolExecutor pool() {
        return new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>());
    }

    private static Pool add(PoolRegistry r, Object pool) {
        synchronized (r.lock) {
            return r.add(pool, Eligibility.Origin.APPLICATION, Eligibility.Creator.UNKNOWN);
        }
    }

    @Test
    void thousandsOfEndedPoolsLeaveTheCurrentOnesAndTheReportKeepsTheNewestInCreationOrder() {
        PoolRegistry r = new PoolRegistry();
        ThreadPoolExecutor live = pool();
        Pool kept = add(r, live);
        List<Pool> made = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            ThreadPoolExecutor e = pool();
            made.add(add(r, e));
            e.shutdown();
        }
        try {
            synchronized (r.lock) {
                assertTrue(r.current().size() <= 2 * PoolRegistry.COMB_AT_LEAST + 1, "current: " + r.current().size());
                assertTrue(r.current().contains(kept), "the live pool stays current");
            }
            List<Pool> all = r.pools();
            assertEquals(kept, all.get(0), "the live pool is the oldest");
            List<Pool> endedKept = all.subList(1, 1 + PoolRegistry.DEAD_POOLS_KEPT);
            assertTrue(made.containsAll(endedKept));
            for (int i = 1; i < all.size(); i++) assertTrue(all.get(i - 1).id() < all.get(i).id(), "creation order at " + i);
            assertEquals(made.get(made.size() - 1), all.get(all.size() - 1), "the newest pool is last");
            assertTrue(all.size() <= 1 + PoolRegistry.DEAD_POOLS_KEPT + 2 * PoolRegistry.COMB_AT_LEAST, "bounded: " + all.size());
        } finally {
            live.shutdown();
        }
    }

    /** A pool class that answers isShutdown itself counts as alive while a started worker runs (PoolState). */
    private static final class OwnPool extends AbstractExecutorService {
        @Override
        public void shutdown() {
        }

        @Override
        public List<Runnable> shutdownNow() {
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return false;
        }

        @Override
        public boolean isTerminated() {
            return false;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }

        @Override
        public void execute(Runnable command) {
            command.run();
        }
    }

    @Test
    void anEndedPoolWhoseClassStartsAWorkerAgainIsCurrentAgain() throws Exception {
        PoolRegistry r = new PoolRegistry();
        ExecutorService own = new OwnPool();
        Pool p = add(r, own);
        Thread t = new Thread(() -> { });
        synchronized (r.lock) {
            r.addWorker(p, t);
            r.removeWorker(t); // its only worker ended: gone, though never shut down
        }
        for (int i = 0; i < 4 * PoolRegistry.COMB_AT_LEAST; i++) add(r, pool());
        synchronized (r.lock) {
            assertFalse(r.current().contains(p), "ended pools leave the current ones");
            assertTrue(r.ended().contains(p));
            r.addWorker(p, new Thread(() -> { }));
            assertTrue(r.current().contains(p), "a worker started again: current again");
            assertFalse(r.ended().contains(p));
        }
    }
}
