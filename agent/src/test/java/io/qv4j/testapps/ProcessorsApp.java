package io.qv4j.testapps;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the JDK sizes from the processor count, asked on a pool's worker. A fixed pool of two
 * ({@code work-1}, {@code work-2}) runs one task on each worker at once; each prints
 * {@code thread NAME tid=TID cpus=LIST} (kernel view), and the first prints
 * <pre>sizes available=A workStealing=W ncpu=N common=C mxbean=M virtual=V classesBefore=B</pre>
 * asked in this order on that worker: {@code Runtime.availableProcessors()}, the parallelism of
 * {@code Executors.newWorkStealingPool()}, {@code Striped64.NCPU} (the class first initialized
 * there, by a {@code LongAdder}), the common pool's parallelism ({@code ForkJoinPool} first
 * initialized there), the management bean's count (java.management first used there) and, on
 * JDK 21 and later, the virtual-thread scheduler's parallelism (the first virtual thread started
 * there; {@code -} before 21). {@code classesBefore} says whether Striped64, ForkJoinPool or
 * VirtualThread was initialized before the task (then the test proves less than it claims). Needs
 * {@code --add-opens java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens java.base/java.lang=ALL-UNNAMED
 * --add-exports java.base/jdk.internal.misc=ALL-UNNAMED}.
 */
public final class ProcessorsApp {

    public static void main(String[] args) throws Exception {
        Class<?> striped = Class.forName("java.util.concurrent.atomic.Striped64", false, null);
        Class<?> fj = Class.forName("java.util.concurrent.ForkJoinPool", false, null);
        Class<?> vt = Runtime.version().feature() >= 21 ? Class.forName("java.lang.VirtualThread", false, null) : null;
        boolean before = initialized(striped) || initialized(fj) || vt != null && initialized(vt);
        int[] n = {0};
        ExecutorService pool = Executors.newFixedThreadPool(2, r -> new Thread(r, "work-" + ++n[0]));
        CountDownLatch both = new CountDownLatch(2);
        Object first = new Object();
        boolean[] asked = {false};
        Future<?>[] fs = new Future<?>[2];
        for (int i = 0; i < 2; i++) {
            fs[i] = pool.submit(() -> {
                both.countDown();
                both.await();
                System.out.println("thread " + Thread.currentThread().getName() + " tid=" + PoolApp.tid() + " cpus=" + PoolApp.cpus("/proc/thread-self/status"));
                synchronized (first) {
                    if (asked[0]) return null;
                    asked[0] = true;
                    int available = Runtime.getRuntime().availableProcessors();
                    ExecutorService ws = Executors.newWorkStealingPool();
                    int workStealing = ((ForkJoinPool) ws).getParallelism();
                    ws.shutdown();
                    new LongAdder().increment();
                    Field ncpu = striped.getDeclaredField("NCPU");
                    ncpu.setAccessible(true);
                    int common = ForkJoinPool.commonPool().getParallelism();
                    int mxbean = ManagementFactory.getOperatingSystemMXBean().getAvailableProcessors();
                    String virtual = "-";
                    if (vt != null) {
                        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
                        Thread v = (Thread) Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class).invoke(builder, (Runnable) () -> { });
                        v.join();
                        Field scheduler = vt.getDeclaredField("DEFAULT_SCHEDULER");
                        scheduler.setAccessible(true);
                        virtual = Integer.toString(((ForkJoinPool) scheduler.get(null)).getParallelism());
                    }
                    System.out.println("sizes available=" + available + " workStealing=" + workStealing + " ncpu=" + ncpu.getInt(null)
                            + " common=" + common + " mxbean=" + mxbean + " virtual=" + virtual + " classesBefore=" + before);
                }
                return null;
            });
        }
        for (Future<?> f : fs) f.get();
        pool.shutdown();
        System.exit(0);
    }

    private static boolean initialized(Class<?> c) throws Exception {
        Class<?> unsafe = Class.forName("jdk.internal.misc.Unsafe");
        Object u = unsafe.getMethod("getUnsafe").invoke(null);
        Method should = unsafe.getMethod("shouldBeInitialized", Class.class);
        return !(Boolean) should.invoke(u, c);
    }
}
