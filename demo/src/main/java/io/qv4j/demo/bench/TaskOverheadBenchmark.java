package io.qv4j.demo.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * What the agent may cost an application that never asked for it, measured from outside:
 * {@code tasks}, a batch of 256 small tasks through a fixed {@link ThreadPoolExecutor} of 2
 * (per-task overhead: the agent's only allowed per-task cost is a volatile read in
 * {@code getTask()}); {@code workerStart}, a new pool of 2 whose two workers start, run one task
 * each and stop (per-worker start: bind and bookkeeping, and this pool's planning).
 * {@code scripts/bench} runs it with and without the agent:
 *
 * <pre>
 * java -jar demo/target/qv-workloads.jar TaskOverheadBenchmark
 * java -jar demo/target/qv-workloads.jar TaskOverheadBenchmark -jvmArgsAppend -javaagent:agent/target/qv-agent.jar
 * </pre>
 * Use {@code qv-workloads.jar} (no qv4j classes inside), not {@code qv-benchmarks.jar}: the latter
 * holds unshaded agent classes that would shadow the agent jar's own.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TaskOverheadBenchmark {

    @State(Scope.Benchmark)
    public static class Pool {
        @Param("256")
        public int batch;
        @Param("200")
        public int work;
        ThreadPoolExecutor executor;

        @Setup(Level.Trial)
        public void start() {
            executor = new ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
            executor.prestartAllCoreThreads();
        }

        @TearDown(Level.Trial)
        public void stop() throws InterruptedException {
            executor.shutdown();
            executor.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /** One batch of small tasks, submitted and awaited. */
    @Benchmark
    public void tasks(Pool p) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(p.batch);
        int work = p.work;
        for (int i = 0; i < p.batch; i++) {
            p.executor.execute(() -> {
                Blackhole.consumeCPU(work);
                done.countDown();
            });
        }
        done.await();
    }

    /** A fresh pool of 2: both workers start, run one task each, and the pool terminates. */
    @Benchmark
    public void workerStart() throws InterruptedException {
        ThreadPoolExecutor executor = new ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
        CountDownLatch started = new CountDownLatch(2);
        executor.execute(started::countDown);
        executor.execute(started::countDown);
        started.await();
        executor.shutdown();
        executor.awaitTermination(10, TimeUnit.SECONDS);
    }
}
