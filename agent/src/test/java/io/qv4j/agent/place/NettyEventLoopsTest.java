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

/** Netty's event-loop threads: one group per {@code <group>-<id>}, slot {@code n - 1}, T = the group's executorCount(). */
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
                assertEquals("netty:" + g.name(), g.key());
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
    }

    @Test
    void onlyFastThreadLocalThreadsAndTheirSubclassesApply() {
        assertTrue(netty.applies(FastThreadLocalThread.class));
        assertTrue(netty.applies(LoopThread.class));
        assertFalse(netty.applies(Thread.class));
        assertFalse(netty.applies(AppThreads.Named.class));
    }
}
