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
 * What {@code Runtime.availableProcessors()} costs a caller, in calls per microsecond, with and
 * without the agent (DESIGN.md §7, the processor count). JMH's worker is a pool's worker: under the
 * agent's defaults it is pinned, and the call answers the JVM scope's count from the JNI library;
 * with {@code pools=none} it is not, and the library hands the call to the JVM's own function.
 * {@code scripts/bench-processors} runs the three side by side.
 *
 * <pre>
 * java -jar demo/target/qv-workloads.jar ProcessorCountBenchmark
 * java -jar demo/target/qv-workloads.jar ProcessorCountBenchmark -jvmArgsAppend -javaagent:agent/target/qv-agent.jar
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ProcessorCountBenchmark {

    @Benchmark
    public int availableProcessors() {
        return Runtime.getRuntime().availableProcessors();
    }
}
