package io.qv4j.testapps;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Pools made by "application" code for in-process placement tests: the creator frame the agent
 * records is here, outside the agent's packages, so the pools count as the application's.
 */
public final class AppPools {

    private AppPools() {
    }

    /** A scheduled pool of one thread, as Reactor's {@code Schedulers.parallel()} makes N of. */
    public static java.util.concurrent.ScheduledThreadPoolExecutor scheduledOne(Consumer<Object> created) {
        java.util.concurrent.ScheduledThreadPoolExecutor p = new java.util.concurrent.ScheduledThreadPoolExecutor(1);
        created.accept(p);
        return p;
    }

    /** A fixed pool of {@code n}; {@code created} plays the constructor hook. */
    public static ThreadPoolExecutor fixed(int n, Consumer<Object> created) {
        ThreadPoolExecutor p = new ThreadPoolExecutor(n, n, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
        created.accept(p);
        return p;
    }

    /** A cached (unbounded) pool. */
    public static ThreadPoolExecutor cached(Consumer<Object> created) {
        ThreadPoolExecutor p = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>());
        created.accept(p);
        return p;
    }
}
