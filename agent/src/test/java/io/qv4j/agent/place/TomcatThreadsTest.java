package io.qv4j.agent.place;

import io.qv4j.testapps.AppThreads;
import org.apache.tomcat.util.threads.TaskQueue;
import org.apache.tomcat.util.threads.TaskThread;
import org.apache.tomcat.util.threads.TaskThreadFactory;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Tomcat's request workers: one group per pool, slot {@code n - 1}, T = the core size, else the maximum if bounded. */
class TomcatThreadsTest {

    final TomcatThreads tomcat = new TomcatThreads();

    static ThreadPoolExecutor pool(int core, int max) {
        TaskQueue q = new TaskQueue();
        ThreadPoolExecutor p = new ThreadPoolExecutor(core, max, 60, TimeUnit.SECONDS, q, new TaskThreadFactory("http-nio-8080-exec-", true, 5));
        q.setParent(p);
        return p;
    }

    static TaskThread thread(String name) {
        return new TaskThread(null, null, name);
    }

    @Test
    void aRealPoolsWorkersAreOneGroupOfItsCoreSizeEachInTheSlotItsNumberGives() throws Exception {
        ThreadPoolExecutor p = pool(3, 5);
        Set<Thread> workers = ConcurrentHashMap.newKeySet();
        CountDownLatch all = new CountDownLatch(3);
        try {
            for (int i = 0; i < 3; i++) {
                p.execute(() -> {
                    workers.add(Thread.currentThread());
                    all.countDown();
                    try {
                        all.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            assertTrue(all.await(10, TimeUnit.SECONDS));
            Set<Integer> slots = new HashSet<>();
            Set<String> keys = new HashSet<>();
            for (Thread t : workers) {
                assertTrue(tomcat.applies(t.getClass()));
                ThreadSet g = tomcat.recognize(t, ThreadTask.of(t));
                assertNotNull(g, t.getName());
                assertEquals("http-nio-8080-exec", g.name());
                assertEquals(ThreadPoolExecutor.class.getName(), g.type());
                assertEquals(3, g.tasks());
                assertEquals(Integer.parseInt(t.getName().substring("http-nio-8080-exec-".length())) - 1, g.slot());
                slots.add(g.slot());
                keys.add(g.key());
            }
            assertEquals(Set.of(0, 1, 2), slots);
            assertEquals(Set.of("tomcat:http-nio-8080-exec-@" + System.identityHashCode(p)), keys);
        } finally {
            p.shutdownNow();
        }
    }

    @Test
    void theCoreSizeElseTheBoundedMaximumElseUnbounded() {
        ThreadPoolExecutor core = pool(4, 10);
        ThreadPoolExecutor noCore = pool(0, 6);
        ThreadPoolExecutor unbounded = pool(0, Integer.MAX_VALUE);
        try {
            assertEquals(4, tomcat.recognize(thread("exec-1"), core).tasks());
            assertEquals(6, tomcat.recognize(thread("exec-1"), noCore).tasks());
            assertEquals(-1, tomcat.recognize(thread("exec-1"), unbounded).tasks(), "unbounded: the pool scope");
        } finally {
            core.shutdown();
            noCore.shutdown();
            unbounded.shutdown();
        }
    }

    @Test
    void twoPoolsWithTheSameNamesAreTwoGroups() {
        ThreadPoolExecutor a = pool(2, 2);
        ThreadPoolExecutor b = pool(2, 2);
        try {
            assertFalse(tomcat.recognize(thread("exec-1"), a).key().equals(tomcat.recognize(thread("exec-1"), b).key()));
        } finally {
            a.shutdown();
            b.shutdown();
        }
    }

    @Test
    void theTrailingAsciiNumberIsTheSlotZeroHugeOrNoneAsksForNone() {
        ThreadPoolExecutor p = pool(2, 2);
        try {
            assertEquals(1, tomcat.recognize(thread("exec-2"), p).slot());
            assertEquals(1, tomcat.recognize(thread("exec2"), p).slot());
            assertEquals(-1, tomcat.recognize(thread("exec-0"), p).slot());
            assertEquals(-1, tomcat.recognize(thread("exec-12345678"), p).slot());
            ThreadSet none = tomcat.recognize(thread("exec"), p);
            assertEquals(-1, none.slot());
            assertEquals("exec", none.name());
            ThreadSet digits = tomcat.recognize(thread("12345"), p);
            assertEquals(-1, digits.slot(), "a name of digits only has no prefix to group by and no slot");
            assertEquals("12345", digits.name());
            ThreadSet arabic = tomcat.recognize(thread("exec-\u0662"), p);
            assertEquals(-1, arabic.slot());
            assertEquals("exec-\u0662", arabic.name());
        } finally {
            p.shutdown();
        }
    }

    @Test
    void taskThreadsOfAJdkPoolOrOfNoPoolAreNotTomcatsRequestWorkers() {
        java.util.concurrent.ThreadPoolExecutor jdk = new java.util.concurrent.ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
        try {
            assertNull(tomcat.recognize(thread("utility-1"), jdk), "Tomcat's utility executor: the JDK pool hooks place it");
            assertNull(tomcat.recognize(thread("exec-1"), null));
            assertNull(tomcat.recognize(thread("exec-1"), new AppThreads.Task()));
        } finally {
            jdk.shutdown();
        }
    }

    @Test
    void onlyTaskThreadsApply() {
        assertTrue(tomcat.applies(TaskThread.class));
        assertFalse(tomcat.applies(Thread.class));
        assertFalse(tomcat.applies(AppThreads.Named.class));
    }
}
