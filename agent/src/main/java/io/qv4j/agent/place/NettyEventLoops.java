package io.qv4j.agent.place;


/**
 * Netty's event-loop groups ({@code NioEventLoopGroup}, {@code EpollEventLoopGroup},
 * {@code IOUringEventLoopGroup}, and any {@code MultithreadEventExecutorGroup}): their threads are
 * {@code io.netty.util.concurrent.FastThreadLocalThread}s named by Netty's default thread factory
 * {@code <group>-<poolId>-<n>}, {@code n} from 1. One group per {@code <group>-<poolId>}; slot
 * {@code n - 1}; T = the group's {@code executorCount()}, reached from the thread's task through its
 * event loop's {@code parent()}, else unknown (one thread per piece). Executors of no group
 * ({@code GlobalEventExecutor}, an event loop made alone) are no group's tasks: not taken.
 */
final class NettyEventLoops implements ThreadRecognizer {

    static final String THREAD = "io.netty.util.concurrent.FastThreadLocalThread";

    @Override
    public boolean applies(Class<?> threadClass) {
        return Reach.isA(threadClass, THREAD);
    }

    @Override
    public ThreadSet recognize(Thread t, Object task) {
        // GROUP-N-M: the group's name is GROUP-N, M counts its threads from 1
        String name = t.getName();
        int dash = ThreadSets.dashNumber(name);
        if (dash < 0 || ThreadSets.dashNumber(name.substring(0, dash)) < 0) return null;
        String prefix = name.substring(0, dash);
        Object group = Reach.withMethod(task, "executorCount");
        // the executor is reachable but no group is: a lone thread, not one of a split's tasks
        if (group == null && Reach.withMethod(task, "inEventLoop") != null) return null;
        int n = group == null ? -1 : Reach.callInt(group, "executorCount");
        String type = group == null ? THREAD : group.getClass().getName();
        return new ThreadSet("netty:" + prefix, prefix, type, n > 0 ? n : 0, ThreadSets.slot(name.substring(dash + 1)),
                null, null, "Netty event-loop group" + (n > 0 ? " of " + n + " threads" : " (size not found: one thread per piece)"));
    }
}
