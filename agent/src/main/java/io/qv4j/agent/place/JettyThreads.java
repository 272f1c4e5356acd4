package io.qv4j.agent.place;


/**
 * Jetty's {@code QueuedThreadPool}: plain threads (any class: the pool's thread factory may be the
 * application's) running the pool's own {@code Runnable} ({@code QueuedThreadPool$Runner}), named
 * {@code qtp<hash>-<id>} or {@code <pool name>-<id>}, the id being the thread's id, not an index:
 * the slot is the lowest free one. T = the pool's {@code getMaxThreads()} (200 by default), found
 * from the task by reflection like a JDK pool's maximum; the planner then keeps to the rule for
 * every pool (one piece per slot unless that would oversubscribe, else the pool scope). Where the
 * pool or its size cannot be read, the pool is unbounded for placement: its threads share the pool scope.
 */
final class JettyThreads implements ThreadRecognizer {

    static final String POOL = "org.eclipse.jetty.util.thread.QueuedThreadPool";

    @Override
    public boolean applies(Class<?> threadClass) {
        return true; // Jetty makes plain threads: recognized by task, below
    }

    @Override
    public ThreadSet recognize(Thread t, Object task) {
        // QueuedThreadPool$Runner (Jetty 12): a class nested in the pool's, whatever its name in other releases
        if (task == null || !task.getClass().getName().startsWith(POOL + "$")) return null;
        int dash = ThreadSets.dashNumber(t.getName());
        String prefix = dash >= 0 ? t.getName().substring(0, dash) : t.getName();
        Object pool = Reach.withMethod(task, "getMaxThreads");
        if (pool != null && !Reach.isA(pool.getClass(), POOL)) pool = null;
        int max = pool == null ? -1 : Reach.callInt(pool, "getMaxThreads");
        int tasks = max > 0 && max < Integer.MAX_VALUE ? max : -1;
        return new ThreadSet("jetty:" + prefix + "@" + System.identityHashCode(pool), prefix, pool == null ? POOL : pool.getClass().getName(),
                tasks, -1, null, null, "Jetty QueuedThreadPool" + (tasks > 0 ? " of up to " + tasks + " threads" : " (maxThreads not found: the pool scope)"));
    }
}
