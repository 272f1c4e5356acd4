package io.qv4j.agent.place;

/**
 * XNIO's I/O threads (Undertow, WildFly, JBoss Remoting): each {@code org.xnio.XnioIoThread} knows
 * its worker ({@code getWorker()}) and its number in it ({@code getNumber()}), and the worker its
 * count ({@code getIoThreadCount()}). One group per worker; slot = the thread's number; T = the
 * count. The worker's task pool is a pool of its own (placed as a pool where it is a
 * {@code ThreadPoolExecutor}).
 */
final class XnioIoThreads implements ThreadRecognizer {

    static final String THREAD = "org.xnio.XnioIoThread";

    private final GroupIds workers = new GroupIds("xnio");

    @Override
    public boolean applies(Class<?> threadClass) {
        return Reach.isA(threadClass, THREAD);
    }

    @Override
    public ThreadSet recognize(Thread t, Object task) {
        Object worker = Reach.call(t, "getWorker");
        int n = worker == null ? -1 : Reach.callInt(worker, "getIoThreadCount");
        int slot = Reach.callInt(t, "getNumber");
        if (n <= 0 || slot < 0 || slot >= n) return null;
        return new ThreadSet(workers.of(worker), ThreadSets.prefix(t.getName()), worker.getClass().getName(), n, slot, null, null, "XNIO I/O threads of " + n + " threads");
    }
}
