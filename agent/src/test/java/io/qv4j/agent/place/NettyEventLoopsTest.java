package io.qv4j.agent.place;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.qv4j.testapps.AppThreads;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Netty's event-loop threads: one group per group object, slot = the loop's index in it, T = the
 * group's executorCount(), whatever the threads are called; Netty's default names where no loop is reachable.
 */
class NettyEventLoopsTest {

    final NettyEventLoops netty = new NettyEventLoops();

    /** The group's threads, each started by running a task on its loop. */
    static List<Thread> threads(EventLoopGroup group) throws Exception {
        List<Thread> out = new ArrayList<>();
        for (EventExecutor e : group) out.add(e.submit(Thread::currentThread).get(10, TimeUnit.SECONDS));
        return out;
    }

    @Test
    void aRealNioGroupOfTwoIsOneGroupOfTwoWithSlotsZeroAndOne() throws Exception {
        NioEventLoopGroup group = new NioEventLoopGroup(2);
        try {
            List<Thread> ts = threads(group);
            Set<Integer> slots = new HashSet<>();
            Set<String> keys = new HashSet<>();
            for (Thread t : ts) {
                assertTrue(netty.applies(t.getClass()), t.getClass().getName());
                ThreadSet g = netty.recognize(t, ThreadTask.of(t));
                assertNotNull(g, t.getName());
                assertTrue(t.getName().matches("nioEventLoopGroup-\\d+-[12]"), t.getName());
                assertEquals(t.getName().substring(0, t.getName().lastIndexOf('-')), g.name());
                assertTrue(g.key().startsWith("netty:" + NioEventLoopGroup.class.getName() + "#"), g.key());
                assertEquals("Netty event-loop group of 2 threads", g.reason());
                assertEquals(NioEventLoopGroup.class.getName(), g.type());
                assertEquals(2, g.tasks());
                slots.add(g.slot());
                keys.add(g.key());
            }
            assertEquals(Set.of(0, 1), slots);
            assertEquals(1, keys.size(), "both loops one group: " + keys);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void anyMultithreadGroupIsFoundWithItsSize() throws Exception {
        DefaultEventLoopGroup group = new DefaultEventLoopGroup(3);
        try {
            for (Thread t : threads(group)) {
                ThreadSet g = netty.recognize(t, ThreadTask.of(t));
                assertEquals(3, g.tasks(), t.getName());
                assertEquals(DefaultEventLoopGroup.class.getName(), g.type());
                assertTrue(g.name().startsWith("defaultEventLoopGroup-"), g.name());
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /** Threads named as Vert.x names them (numbered from 0), made by the application's own factory: the structure decides. */
    @Test
    void aGroupWithItsOwnThreadNamesIsFoundByStructure() throws Exception {
        java.util.concurrent.atomic.AtomicInteger k = new java.util.concurrent.atomic.AtomicInteger();
        NioEventLoopGroup a = new NioEventLoopGroup(3, (java.util.concurrent.ThreadFactory) r -> new LoopThread(r, "my.app-eventloop-thread-" + k.getAndIncrement()));
        NioEventLoopGroup b = new NioEventLoopGroup(2, (java.util.concurrent.ThreadFactory) r -> new LoopThread(r, "my.app-eventloop-thread-" + k.getAndIncrement()));
        try {
            Set<Integer> slots = new HashSet<>();
            Set<String> keys = new HashSet<>();
            for (Thread t : threads(a)) {
                ThreadSet g = netty.recognize(t, ThreadTask.of(t));
                assertNotNull(g, t.getName());
                assertEquals(3, g.tasks());
                assertEquals("my.app-eventloop-thread", g.name());
                slots.add(g.slot());
                keys.add(g.key());
            }
            assertEquals(Set.of(0, 1, 2), slots);
            assertEquals(1, keys.size());
            for (Thread t : threads(b)) {
                ThreadSet g = netty.recognize(t, ThreadTask.of(t));
                assertEquals(2, g.tasks());
                assertFalse(keys.contains(g.key()), "a second group with the same thread names is another group");
            }
        } finally {
            a.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            b.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void shadedCopiesOfNettysThreadClassApplyAndTheFrameworkIsNamed() {
        assertTrue(NettyEventLoops.isNetty("io.grpc.netty.shaded.io.netty.util.concurrent.FastThreadLocalThread", NettyEventLoops.THREAD));
        assertFalse(NettyEventLoops.isNetty("com.acme.notio.netty.util.concurrent.FastThreadLocalThread", NettyEventLoops.THREAD));
        assertEquals("Netty event-loop group", NettyEventLoops.framework(LoopThread.class, NioEventLoopGroup.class));
        assertEquals("reactor-http-epoll", ThreadSets.prefix("reactor-http-epoll-12"));
        assertEquals("grpc-default-worker-ELG-1", ThreadSets.prefix("grpc-default-worker-ELG-1-3"));
    }

    @Test
    void executorsOfNoGroupAreNotEventLoopGroups() throws Exception {
        Thread global = GlobalEventExecutor.INSTANCE.submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
        assertTrue(global.getName().matches("globalEventExecutor-\\d+-\\d+"), global.getName());
        assertTrue(netty.applies(global.getClass()));
        assertNull(netty.recognize(global, ThreadTask.of(global)), "Netty's global executor: one thread of no group");
        DefaultEventLoop alone = new DefaultEventLoop();
        try {
            Thread t = alone.submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
            assertNull(netty.recognize(t, ThreadTask.of(t)), "an event loop made on its own, " + t.getName());
        } finally {
            alone.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void withoutAGroupToReachTheSizeIsUnknownAndTheSlotStillComesFromTheName() {
        ThreadSet g = netty.recognize(new FastThreadLocalThread("nioEventLoopGroup-7-3"), null);
        assertEquals("netty:nioEventLoopGroup-7", g.key());
        assertEquals(0, g.tasks(), "not known: one thread per piece");
        assertEquals(2, g.slot());
        assertEquals(FastThreadLocalThread.class.getName(), g.type());
        assertNotNull(netty.recognize(new FastThreadLocalThread("nioEventLoopGroup-7-1"), new AppThreads.Task()));
    }

    @Test
    void theLastNumberIsTheSlotTheRestIsTheGroup() {
        ThreadSet g = netty.recognize(new FastThreadLocalThread("my-loops-12-5"), null);
        assertEquals("my-loops-12", g.name());
        assertEquals(4, g.slot());
        assertEquals(-1, netty.recognize(new FastThreadLocalThread("nioEventLoopGroup-2-0"), null).slot());
        assertEquals(-1, netty.recognize(new FastThreadLocalThread("nioEventLoopGroup-2-12345678"), null).slot());
    }

    @Test
    void namesWithoutTwoAsciiNumbersAreNotEventLoops() {
        for (String n : new String[] {"nioEventLoopGroup", "nioEventLoopGroup-2", "worker-1", "nioEventLoopGroup-2-x",
                                      "nioEventLoopGroup-2-\u0661", "nioEventLoopGroup-\u0662-1", "-2-1", "2-1"}) {
            assertNull(netty.recognize(new FastThreadLocalThread(n), null), n);
        }
    }

    /** Netty's thread class subclassed by an application. */
    static final class LoopThread extends FastThreadLocalThread {
        LoopThread(String name) {
            super(name);
        }

        LoopThread(Runnable r, String name) {
            super(r, name);
        }
    }

    @Test
    void onlyFastThreadLocalThreadsAndTheirSubclassesApply() {
        assertTrue(netty.applies(FastThreadLocalThread.class));
        assertTrue(netty.applies(LoopThread.class));
        assertFalse(netty.applies(Thread.class));
        assertFalse(netty.applies(AppThreads.Named.class));
    }
}
