package io.qv4j.agent.place;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** From a thread's task to its framework's pool: the bounded walk over fields, and reading the task. */
class ReachTest {

    /** What the walk looks for: an object with a public {@code getMaxThreads()}. */
    public static class Pool {
        final String id;

        Pool(String id) {
            this.id = id;
        }

        public int getMaxThreads() {
            return 8;
        }
    }

    static class SubPool extends Pool {
        SubPool() {
            super("sub");
        }
    }

    /** One hop: a private field. */
    static final class Link {
        private final Object next;

        Link(Object next) {
            this.next = next;
        }
    }

    /** Two ways on: the first field is the longer. */
    static final class Fork {
        private final Object a;
        private final Object b;

        Fork(Object a, Object b) {
            this.a = a;
            this.b = b;
        }
    }

    /** A node of a tree with eight children. */
    static final class Node {
        private final Object c0;
        private final Object c1;
        private final Object c2;
        private final Object c3;
        private final Object c4;
        private final Object c5;
        private final Object c6;
        private final Object c7;

        Node(Object... c) {
            Object[] x = new Object[8];
            System.arraycopy(c, 0, x, 0, c.length);
            c0 = x[0];
            c1 = x[1];
            c2 = x[2];
            c3 = x[3];
            c4 = x[4];
            c5 = x[5];
            c6 = x[6];
            c7 = x[7];
        }
    }

    static final class Holder {
        private static Object shared;
        private final List<Object> list = new ArrayList<>();
        private final Thread thread;

        Holder(Thread thread) {
            this.thread = thread;
        }
    }

    /** A thread that has the method: the walk never enters or returns threads. */
    public static final class PoolThread extends Thread {
        public int getMaxThreads() {
            return 3;
        }
    }

    static Object chain(int hops, Object end) {
        Object o = end;
        for (int i = 0; i < hops; i++) o = new Link(o);
        return o;
    }

    @Test
    void theStartItselfWhenItHasTheMethod() {
        Pool p = new Pool("p");
        assertSame(p, Reach.withMethod(p, "getMaxThreads"));
    }

    @Test
    void foundThroughPrivateFieldsUpToFourHopsAndNoFurther() {
        Pool p = new Pool("p");
        for (int hops = 1; hops <= Reach.DEPTH; hops++) assertSame(p, Reach.withMethod(chain(hops, p), "getMaxThreads"), hops + " hops");
        assertNull(Reach.withMethod(chain(Reach.DEPTH + 1, p), "getMaxThreads"));
    }

    @Test
    void breadthFirstTheNearestWins() {
        Pool near = new Pool("near");
        Pool far = new Pool("far");
        assertSame(near, Reach.withMethod(new Fork(chain(2, far), near), "getMaxThreads"));
    }

    @Test
    void aSubclassThatInheritsThePublicMethodIsFound() {
        SubPool p = new SubPool();
        assertSame(p, Reach.withMethod(new Link(p), "getMaxThreads"));
    }

    @Test
    void jdkObjectsThreadsAndStaticFieldsAreNotEntered() {
        Holder h = new Holder(new PoolThread());
        h.list.add(new Pool("in a list"));
        Holder.shared = new Pool("static");
        try {
            assertNull(Reach.withMethod(h, "getMaxThreads"));
            assertNull(Reach.withMethod(new Link(new Thread(() -> { })), "getMaxThreads"));
        } finally {
            Holder.shared = null;
        }
    }

    @Test
    void theWalkEndsAfterSixtyFourObjects() {
        // a pool four hops down every path: found as soon as the walk expands an object three hops down
        assertTrue(Reach.withMethod(tree(7, 3), "getMaxThreads") instanceof Pool, "1 + 7 + 49 objects before the first of depth 3");
        assertNull(Reach.withMethod(tree(8, 3), "getMaxThreads"), "1 + 8 + 64 objects before the first of depth 3: beyond the bound");
    }

    static Object tree(int width, int depth) {
        if (depth == 0) return new Link(new Pool("leaf"));
        Object[] c = new Object[width];
        for (int i = 0; i < width; i++) c[i] = tree(width, depth - 1);
        return new Node(c);
    }

    /** A hop that can close a cycle. */
    static final class Cell {
        private Object next;
    }

    @Test
    void cyclesEndAndNothingFoundIsNull() {
        Cell a = new Cell();
        Cell b = new Cell();
        a.next = b;
        b.next = a;
        assertNull(Reach.withMethod(a, "getMaxThreads"));
        assertNull(Reach.withMethod(null, "getMaxThreads"));
        assertNull(Reach.withMethod(new Link(new Pool("p")), "noSuchMethod"));
    }

    @Test
    void callIntIsTheIntResultElseMinusOne() {
        assertEquals(8, Reach.callInt(new Pool("p"), "getMaxThreads"));
        assertEquals(-1, Reach.callInt(new Pool("p"), "toString"), "not an int");
        assertEquals(-1, Reach.callInt(new Pool("p"), "missing"));
        assertEquals(-1, Reach.callInt(new Object() {
            @SuppressWarnings("unused")
            public int boom() {
                throw new IllegalStateException();
            }
        }, "boom"), "a method that throws");
        assertEquals("x", Reach.call("x", "toString"));
        assertNull(Reach.call("x", "missing"));
    }

    @Test
    void isAMatchesTheClassOrASuperclassByName() {
        assertTrue(Reach.isA(SubPool.class, Pool.class.getName()));
        assertTrue(Reach.isA(Pool.class, Pool.class.getName()));
        assertFalse(Reach.isA(Pool.class, SubPool.class.getName()));
        assertFalse(Reach.isA(Pool.class, "Pool"), "the binary name, not the simple one");
    }

    @Test
    void aThreadsTaskIsItsRunnableAndNullWithoutOne() {
        Runnable r = () -> { };
        assertSame(r, ThreadTask.of(new Thread(r, "t")));
        assertNull(ThreadTask.of(new Thread("t")));
        assertNull(ThreadTask.of(null));
    }
}
