package io.qv4j.demo.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * What the thread-start hook (JVMTI's thread events, or {@code Thread.run()} without the JNI
 * library) costs a thread that no rule and no recognizer names: one plain platform thread started
 * and joined per operation (goal: no more than 2 µs more with the agent than without). Run with and
 * without the agent, the agent told to pin no pool: otherwise it pins JMH's own worker pool, each
 * started thread inherits that worker's one PU and the agent gives it the JVM scope back as it
 * starts, which measures that too (before the agent did so, the hand-off on one PU made the
 * agent's run look a third faster).
 *
 * <pre>
 * java -jar demo/target/qv-workloads.jar ThreadStartBenchmark
 * java -jar demo/target/qv-workloads.jar ThreadStartBenchmark -jvmArgsAppend -javaagent:agent/target/qv-agent.jar=pools=none
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ThreadStartBenchmark {

    private static final Runnable NOTHING = new Runnable() {
        @Override
        public void run() {
        }
    };

    @Benchmark
    public void startJoin() throws InterruptedException {
        Thread t = new Thread(NOTHING, "bench-plain");
        t.start();
        t.join();
    }
}
