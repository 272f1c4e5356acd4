package io.qv4j.agent.place;


/**
 * Tomcat's request workers: {@code org.apache.tomcat.util.threads.TaskThread}s started by Tomcat's
 * own {@code ThreadPoolExecutor} (a copy of the JDK class, not a subclass, so the JDK pool hooks do
 * not see it), named {@code <prefix><n>} ({@code http-nio-8080-exec-1}), {@code n} from 1. T as for
 * the JDK's pool: the core size ({@code minSpareThreads}) if above 0, else the maximum if bounded;
 * slot {@code n - 1}; threads beyond T share the pool scope.
 */
final class TomcatThreads implements ThreadRecognizer {

    static final String THREAD = "org.apache.tomcat.util.threads.TaskThread";
    static final String POOL = "org.apache.tomcat.util.threads.ThreadPoolExecutor";

    @Override
    public boolean applies(Class<?> threadClass) {
        return Reach.isA(threadClass, THREAD);
    }

    @Override
    public ThreadSet recognize(Thread t, Object task) {
        // NAME-exec-N: N counts the pool's threads from 1
        String full = t.getName();
        int d = ThreadSets.trailingDigits(full);
        boolean numbered = d > 0 && d < full.length();
        String prefix = numbered ? full.substring(0, d) : full;
        Object pool = Reach.withMethod(task, "getCorePoolSize");
        // TaskThreads of a JDK pool (Tomcat's utility executor) are that pool's workers: the pool hooks place them
        if (pool == null || !Reach.isA(pool.getClass(), POOL)) return null;
        int core = Reach.callInt(pool, "getCorePoolSize");
        int max = Reach.callInt(pool, "getMaximumPoolSize");
        int tasks = core > 0 ? core : max > 0 && max < Integer.MAX_VALUE ? max : -1;
        String name = prefix.endsWith("-") ? prefix.substring(0, prefix.length() - 1) : prefix;
        return new ThreadSet("tomcat:" + prefix + "@" + System.identityHashCode(pool), name,
                pool.getClass().getName(), tasks, numbered ? ThreadSets.slot(full.substring(d)) : -1, null, null,
                "Tomcat request workers" + (tasks > 0 ? ", " + tasks + " core threads" : ""));
    }
}
