package io.qv4j.agent.place;

import io.qv4j.testapps.AppThreads;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Jetty's QueuedThreadPool: plain threads known by their task; T = maxThreads; slots lowest free. */
class JettyThreadsTest {

    final JettyThreads jetty = new JettyThreads();

    /** {@code n} of the pool's threads, caught while each runs a job. */
    static Set<Thread> threads(QueuedThreadPool pool, int n) throws Exception {
        Set<Thread> out = ConcurrentHashMap.newKeySet();
        CountDownLatch all = new CountDownLatch(n);
        CountDownLatch done = new CountDownLatch(1);
        for (int i = 0; i < n; i++) {
            pool.execute(() -> {
                out.add(Thread.currentThread());
                all.countDown();
                try {
                    done.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        assertTrue(all.await(10, TimeUnit.SECONDS));
        done.countDown();
        return out;
    }

    @Test
    void aRealPoolsThreadsAreOneGroupOfMaxThreadsTakingTheLowestFreeSlot() throws Exception {
        QueuedThreadPool pool = new QueuedThreadPool(6, 2);
        pool.setName("web");
        pool.start();
        try {
            Set<String> keys = ConcurrentHashMap.newKeySet();
            for (Thread t : threads(pool, 3)) {
                assertTrue(jetty.applies(t.getClass()));
                assertTrue(t.getName().matches("web-\\d+"), t.getName());
                ThreadSet g = jetty.recognize(t, ThreadTask.of(t));
                assertNotNull(g, t.getName());
                assertEquals("web", g.name());
                assertEquals(QueuedThreadPool.class.getName(), g.type());
                assertEquals(6, g.tasks(), "T = maxThreads, not minThreads nor the PUs");
                assertEquals(-1, g.slot(), "the number is the thread's id, not an index");
                keys.add(g.key());
            }
            assertEquals(Set.of("jetty:web@" + System.identityHashCode(pool)), keys);
        } finally {
            pool.stop();
        }
    }

    @Test
    void tIsMaxThreadsEvenWhenAboveThePusAndAnUnboundedPoolHasTheScope() throws Exception {
        int many = Runtime.getRuntime().availableProcessors() + 100;
        QueuedThreadPool big = new QueuedThreadPool(many, 1);
        QueuedThreadPool unbounded = new QueuedThreadPool(Integer.MAX_VALUE, 1);
        big.start();
        unbounded.start();
        try {
            Thread t = threads(big, 1).iterator().next();
            ThreadSet g = jetty.recognize(t, ThreadTask.of(t));
            assertEquals(many, g.tasks(), "the planner, not the recognizer, keeps the pool from oversubscribing PUs");
            assertTrue(g.name().startsWith("qtp"), g.name());
            Thread u = threads(unbounded, 1).iterator().next();
            assertEquals(-1, jetty.recognize(u, ThreadTask.of(u)).tasks());
        } finally {
            big.stop();
            unbounded.stop();
        }
    }

    /** An application's pool class. */
    static final class MyPool extends QueuedThreadPool {
        MyPool() {
            super(4, 1);
        }
    }

    @Test
    void aSubclassOfThePoolIsRecognizedUnderItsOwnClass() throws Exception {
        MyPool pool = new MyPool();
        pool.start();
        try {
            Thread t = threads(pool, 1).iterator().next();
            ThreadSet g = jetty.recognize(t, ThreadTask.of(t));
            assertEquals(4, g.tasks());
            assertEquals(MyPool.class.getName(), g.type());
        } finally {
            pool.stop();
        }
    }

    @Test
    void threadsThatDoNotRunThePoolsOwnTaskAreNotJettys() {
        assertNull(jetty.recognize(new Thread("qtp12345-17"), null));
        assertNull(jetty.recognize(new Thread("qtp12345-17"), new AppThreads.Task()));
        assertNull(jetty.recognize(new Thread("qtp12345-17"), new QueuedThreadPool()), "the pool itself is not its thread's task");
    }

    @Test
    void everyThreadClassApplies() {
        assertTrue(jetty.applies(Thread.class));
        assertTrue(jetty.applies(AppThreads.Named.class));
    }
}
