package io.qv4j.agent.place;

import io.qv4j.agent.bind.NativeAffinity;

import java.lang.reflect.Field;

/**
 * The {@link Runnable} a platform thread was made with: {@code Thread.target} on JDK 17,
 * {@code Thread.holder.task} on JDK 19 and later. Read when a platform thread starts, to tell a
 * pool's worker from a plain thread (for rules and recognizers, and, once qv4j has bound a thread,
 * before giving a thread it does not place the JVM scope back) and to reach a framework's pool;
 * null where it cannot be read. Through the agent's JNI library where it is loaded (then {@code java.lang}
 * is not opened to the agent), else by reflection ({@code java.lang} is opened when the hooks go in).
 */
final class ThreadTask {

    /** JDK 19 moved the task into {@code Thread.holder}: asking for a field that is not there costs a thrown error. */
    private static final boolean IN_HOLDER = Runtime.version().feature() >= 19;

    private ThreadTask() {
    }

    /** The thread's task, or null. */
    static Object of(Thread t) {
        return NativeAffinity.isLoaded() ? NativeAffinity.threadTask(t, IN_HOLDER) : Reflected.of(t);
    }

    /** The reflective reading, its fields looked up at its first use. */
    private static final class Reflected {
        private static final Field TARGET;
        private static final Field HOLDER;
        private static final Field HOLDER_TASK;

        static {
            Field target = null;
            Field holder = null;
            Field task = null;
            try {
                if (IN_HOLDER) {
                    holder = open(Thread.class, "holder");
                    task = open(holder.getType(), "task");
                } else {
                    target = open(Thread.class, "target");
                }
            } catch (Throwable cannot) {
                target = null;
                holder = null;
                task = null;
            }
            TARGET = target;
            HOLDER = holder;
            HOLDER_TASK = task;
        }

        private static Field open(Class<?> c, String name) throws ReflectiveOperationException {
            Field f = c.getDeclaredField(name);
            f.setAccessible(true);
            return f;
        }

        static Object of(Thread t) {
            try {
                if (TARGET != null) return TARGET.get(t);
                if (HOLDER != null) {
                    Object h = HOLDER.get(t);
                    return h == null ? null : HOLDER_TASK.get(h);
                }
            } catch (Throwable cannot) {
                // unreadable: unknown
            }
            return null;
        }
    }
}
