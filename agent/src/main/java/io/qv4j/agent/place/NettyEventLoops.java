package io.qv4j.agent.place;

/**
 * Netty's event-loop groups ({@code NioEventLoopGroup}, {@code EpollEventLoopGroup}, any
 * {@code MultithreadEventExecutorGroup}), found by what they are, not by what they are called: from
 * the thread's task to its event loop (the object with {@code inEventLoop()}), from the loop to its
 * group ({@code parent()}). One group per group object; slot = the loop's index among the group's
 * children; T = the group's {@code executorCount()}. Whatever names its thread factory gives
 * (Vert.x's {@code vert.x-eventloop-thread-N}, Reactor Netty's {@code reactor-http-epoll-N}, gRPC's
 * {@code grpc-default-worker-ELG-1-N}), and in shaded copies of Netty (gRPC's
 * {@code io.grpc.netty.shaded.io.netty}): their classes end in Netty's names. Executors of no group
 * ({@code GlobalEventExecutor}, an event loop made alone) are no group's tasks. Where no loop can be
 * reached from the task, Netty's default names {@code <group>-<poolId>-<n>} still make a group
 * (slot {@code n - 1}, size unknown: one thread per piece).
 */
final class NettyEventLoops implements ThreadRecognizer {

    static final String THREAD = "io.netty.util.concurrent.FastThreadLocalThread";

    private final GroupIds groups = new GroupIds("netty");

    @Override
    public boolean applies(Class<?> threadClass) {
        for (Class<?> c = threadClass; c != null; c = c.getSuperclass()) if (isNetty(c.getName(), THREAD)) return true;
        return false;
    }

    /** {@code name} is Netty's class {@code netty}, or a shaded copy of it ({@code some.prefix.io.netty...}). */
    static boolean isNetty(String name, String netty) {
        return name.equals(netty) || name.length() > netty.length() && name.endsWith(netty) && name.charAt(name.length() - netty.length() - 1) == '.';
    }

    @Override
    public ThreadSet recognize(Thread t, Object task) {
        Object loop = Reach.withMethod(task, "inEventLoop");
        if (loop == null) return byName(t.getName());
        Object group = Reach.call(loop, "parent");
        if (group == null || group == loop || !(group instanceof Iterable<?> children)) return null; // a lone executor
        int n = Reach.callInt(group, "executorCount");
        int slot = 0;
        try {
            for (Object child : children) {
                if (child == loop) break;
                slot++;
            }
        } catch (RuntimeException e) {
            return null;
        }
        if (n <= 0 || slot >= n) return null;
        String name = ThreadSets.prefix(t.getName());
        String what = framework(t.getClass(), group.getClass());
        return new ThreadSet(groups.of(group), name.isEmpty() ? what : name, group.getClass().getName(), n, slot, null, null, what + " of " + n + " threads");
    }

    /** What built the group, for {@code verbose} and the report: the thread's and the group's packages tell. */
    static String framework(Class<?> threadClass, Class<?> groupClass) {
        StringBuilder names = new StringBuilder(groupClass.getName());
        for (Class<?> c = threadClass; c != null && c != Thread.class; c = c.getSuperclass()) names.append(' ').append(c.getName());
        String all = " " + names;
        if (all.contains(" io.vertx.")) return "Vert.x event loops";
        if (all.contains(" reactor.netty.")) return "Reactor Netty event loops";
        if (all.contains(" io.grpc.")) return "gRPC event loops";
        return "Netty event-loop group";
    }

    /** Netty's default names, {@code GROUP-N-M}: the group's name is GROUP-N, M counts its threads from 1. */
    private static ThreadSet byName(String name) {
        int dash = ThreadSets.dashNumber(name);
        if (dash < 0 || ThreadSets.dashNumber(name.substring(0, dash)) < 0) return null;
        String prefix = name.substring(0, dash);
        return new ThreadSet("netty:" + prefix, prefix, THREAD, 0, ThreadSets.slot(name.substring(dash + 1)),
                null, null, "Netty event-loop group (size not found: one thread per piece)");
    }
}
