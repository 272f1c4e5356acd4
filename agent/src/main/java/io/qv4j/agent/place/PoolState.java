package io.qv4j.agent.place;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * What the agent asks an application's pool object while it holds the registry's lock: whether it
 * is shut down, its thread factory ({@link #asked}: the callers ask only where this says so), how
 * many tasks it completed. A pool's class may override those methods and take a lock of its own
 * there (a {@code synchronized isShutdown()}); a thread that holds that lock and waits for the
 * registry (it starts a thread or makes a pool) would then deadlock with the agent. So they are
 * asked only where the JDK's own methods answer: a pool of the JDK's classes, or of a class that
 * overrides none of them. Otherwise the pool counts as running while a worker it started runs
 * ({@link Pool#alive}), is not taken for one of {@code QvExecutors}, and reports no count. A pool's
 * size is read before the lock is taken ({@link Eligibility#tasks}).
 */
final class PoolState {

    private PoolState() {
    }

    /** Whether a pool class's answers are the JDK's: checked once per class, by reflection (a fraction of a millisecond cold). */
    private static final class Checked {
        static final ClassValue<Boolean> JDK_ANSWERS = new ClassValue<>() {
            @Override
            protected Boolean computeValue(Class<?> c) {
                return jdks(c, "isShutdown")
                        && (!ThreadPoolExecutor.class.isAssignableFrom(c) || jdks(c, "getCompletedTaskCount") && jdks(c, "getThreadFactory"))
                        && (!ForkJoinPool.class.isAssignableFrom(c) || jdks(c, "getStealCount"));
            }
        };
    }

    private static boolean jdks(Class<?> c, String method) {
        try {
            return c.getMethod(method).getDeclaringClass().getName().startsWith("java.");
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    /** Whether the JDK's own methods answer for {@code pool}'s class (the two pool classes of the JDK without reflection). */
    static boolean asked(Object pool) {
        Class<?> c = pool.getClass();
        return c == ThreadPoolExecutor.class || c == ForkJoinPool.class || Checked.JDK_ANSWERS.get(c);
    }

    /** Tasks completed ({@code ForkJoinPool}: steals); -1 where not asked, or for anything else. */
    static long completed(Object pool) {
        if (pool instanceof ThreadPoolExecutor t) return asked(t) ? t.getCompletedTaskCount() : -1;
        if (pool instanceof ForkJoinPool f) return asked(f) ? f.getStealCount() : -1;
        return -1;
    }
}
