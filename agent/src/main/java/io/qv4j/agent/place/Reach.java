package io.qv4j.agent.place;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * A bounded walk over the fields of a framework's objects, by reflection and by class and method
 * name only (the agent has no compile-time dependency on any framework): from a thread's task to
 * the pool or group that started it. JDK objects are not entered. Nothing escapes: null when not found.
 */
final class Reach {

    /** How many field hops from the start; how many objects at most. */
    static final int DEPTH = 4;
    static final int OBJECTS = 64;

    private Reach() {
    }

    /** The first object (breadth first, the start included) that has a public no-argument method {@code method}. */
    static Object withMethod(Object start, String method) {
        if (start == null) return null;
        try {
            if (method(start, method) != null) return start;
            Map<Object, Integer> seen = new IdentityHashMap<>();
            ArrayDeque<Object> queue = new ArrayDeque<>();
            seen.put(start, 0);
            queue.add(start);
            for (int expanded = 0; !queue.isEmpty() && expanded < OBJECTS; expanded++) {
                Object o = queue.poll();
                int depth = seen.get(o);
                if (depth == DEPTH || isJdk(o.getClass())) continue;
                for (Class<?> c = o.getClass(); c != null && !isJdk(c); c = c.getSuperclass()) {
                    for (Field f : c.getDeclaredFields()) {
                        if (f.getType().isPrimitive() || Modifier.isStatic(f.getModifiers())) continue;
                        Object v;
                        try {
                            f.setAccessible(true);
                            v = f.get(o);
                        } catch (Throwable closed) {
                            continue;
                        }
                        if (v == null || seen.containsKey(v) || v instanceof Thread) continue;
                        if (method(v, method) != null) return v;
                        seen.put(v, depth + 1);
                        queue.add(v);
                    }
                }
            }
        } catch (Throwable t) {
            // a walk that fails finds nothing
        }
        return null;
    }

    /** {@code o.method()} as an int, or -1. */
    static int callInt(Object o, String method) {
        try {
            Method m = method(o, method);
            Object v = m == null ? null : m.invoke(o);
            return v instanceof Integer i ? i : -1;
        } catch (Throwable t) {
            return -1;
        }
    }

    /** {@code o.method()}, or null. */
    static Object call(Object o, String method) {
        try {
            Method m = method(o, method);
            return m == null ? null : m.invoke(o);
        } catch (Throwable t) {
            return null;
        }
    }

    private static Method method(Object o, String name) {
        try {
            Method m = o.getClass().getMethod(name);
            m.setAccessible(true);
            return m;
        } catch (Throwable t) {
            return null;
        }
    }

    /** True if {@code c} or a superclass is named {@code name}. */
    static boolean isA(Class<?> c, String name) {
        for (; c != null; c = c.getSuperclass()) if (c.getName().equals(name)) return true;
        return false;
    }

    private static boolean isJdk(Class<?> c) {
        String n = c.getName();
        return n.startsWith("java.") || n.startsWith("jdk.") || n.startsWith("sun.") || n.startsWith("[");
    }
}
