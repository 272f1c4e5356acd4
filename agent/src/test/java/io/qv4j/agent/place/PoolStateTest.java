package io.qv4j.agent.place;

import io.qv4j.testapps.AppPools;
import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent asks an application's pool nothing its class answers itself while it holds the
 * registry's lock: such a method may take the pool's own lock, held by a thread that waits for the
 * registry (a deadlock).
 */
class PoolStateTest {

    /** A pool class that answers for itself, each answer noting whether the registry's lock was held when it was asked. */
    static final class AnswersItself extends ThreadPoolExecutor {
        final Object registryLock;
        final List<String> askedUnderLock = new CopyOnWriteArrayList<>();

        AnswersItself(int n, Object registryLock) {
            super(n, n, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
            this.registryLock = registryLock;
        }

        private void asked(String what) {
            if (Thread.holdsLock(registryLock)) askedUnderLock.add(what);
        }

        @Override
        public int getCorePoolSize() {
            asked("getCorePoolSize");
            return super.getCorePoolSize();
        }

        @Override
        public int getMaximumPoolSize() {
            asked("getMaximumPoolSize");
            return super.getMaximumPoolSize();
        }

        @Override
        public boolean isShutdown() {
            asked("isShutdown");
            return super.isShutdown();
        }

        @Override
        public long getCompletedTaskCount() {
            asked("getCompletedTaskCount");
            return super.getCompletedTaskCount();
        }

        @Override
        public ThreadFactory getThreadFactory() {
            asked("getThreadFactory");
            return super.getThreadFactory();
        }
    }

    @Test
    void aPoolWhoseClassAnswersForItselfIsNeverAskedUnderTheRegistrysLockAndIsPlacedAsAnyOther() throws Exception {
        Placer p = new PlacerTest().placer("", null);
        AnswersItself own = new AnswersItself(2, p.registry().lock);
        p.poolCreated(own);
        PlacerTest.start(p, own, "own", 2);
        ThreadPoolExecutor other = AppPools.fixed(2, p::poolCreated);
        PlacerTest.start(p, other, "app", 2); // planning it asks which pools still hold their PUs
        synchronized (p.registry().lock) {
            PlacerTest.pool(p, own).completedTasks(); // as the report asks
        }
        assertEquals(List.of(), own.askedUnderLock);
        assertEquals(2, PlacerTest.pool(p, own).tasks(), "its size, read before the lock");
        List<CpuSet> mine = PlacerTest.cpusets(p, own);
        assertEquals(2, mine.size());
        assertTrue(PlacerTest.pool(p, own).pinned());
        for (CpuSet c : PlacerTest.cpusets(p, other)) {
            for (CpuSet m : mine) assertFalse(c.intersects(m), "the other pool keeps off its PUs while it runs: " + c + " against " + m);
        }
    }

    @Test
    void aShutDownPoolWhoseClassAnswersForItselfIsAliveUntilItsWorkersHaveEnded() throws Exception {
        Placer p = new PlacerTest().placer("", null);
        AnswersItself own = new AnswersItself(2, p.registry().lock);
        p.poolCreated(own);
        List<Thread> workers = PlacerTest.start(p, own, "own", 2);
        own.shutdown();
        Pool record = PlacerTest.pool(p, own);
        synchronized (p.registry().lock) {
            assertTrue(record.alive(), "not asked whether it is shut down, and its workers run");
        }
        for (Thread t : workers) p.workerExit(own, t);
        synchronized (p.registry().lock) {
            assertFalse(record.alive(), "its workers have ended");
        }
        assertEquals(List.of(), own.askedUnderLock);
    }
}
