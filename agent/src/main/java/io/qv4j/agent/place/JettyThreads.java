package io.qv4j.agent.place;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Jetty's {@code QueuedThreadPool}: plain threads named {@code qtp<hash>-<id>} (or the pool's own
 * name and {@code -<id>}, the id being the thread's id, not an index). T = the pool's
 * {@code getMaxThreads()} when that is no more than the PUs this JVM may use, else the pool is
 * unbounded for placement (its threads share the pool scope; Jetty's default is 200). The slot
 * is the lowest free one.
 */
final class JettyThreads implements ThreadRecognizer {

    static final String POOL = "org.eclipse.jetty.util.thread.QueuedThreadPool";
    private static final Pattern NAME = Pattern.compile("(.+)-\\d+");

    @Override
    public boolean applies(Class<?> threadClass) {
        return true; // Jetty makes plain threads: recognized by task, below
    }

    @Override
    public ThreadSet recognize(Thread t, Object task) {
        if (task == null || !task.getClass().getName().startsWith(POOL)) return null; // QueuedThreadPool$Runner
        Matcher m = NAME.matcher(t.getName());
        String prefix = m.matches() ? m.group(1) : t.getName();
        Object pool = Reach.withMethod(task, "getMaxThreads");
        int max = pool == null ? -1 : Reach.callInt(pool, "getMaxThreads");
        boolean small = max > 0 && max <= Runtime.getRuntime().availableProcessors();
        return new ThreadSet("jetty:" + prefix + "@" + System.identityHashCode(pool), prefix, POOL, small ? max : -1, -1, null, null,
                "Jetty QueuedThreadPool" + (small ? " of " + max + " threads" : max > 0 ? " of up to " + max + " threads" : ""));
    }
}
