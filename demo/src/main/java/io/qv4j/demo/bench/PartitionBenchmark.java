package io.qv4j.demo.bench;

import io.qv4j.api.Partition;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Exact 1-D partition of 10⁷ weights into 1024 parts (target: ≤ 200 ms), and ORB on
 * the same weights for comparison. Each call starts from the raw weights (prefix sums included).
 * {@code small}: weights uniform in {@code [0, 1000)}; {@code wide}: uniform in {@code [0, 2^40)},
 * so the bisection takes about 40 probes instead of 10.
 *
 * <pre>
 * mvn -B -q -o install -DskipTests
 * R=~/.m2/repository
 * java -Xmx2g -cp demo/target/classes:api/target/classes:$R/org/openjdk/jmh/jmh-core/1.37/jmh-core-1.37.jar:\
 *   $R/net/sf/jopt-simple/jopt-simple/5.0.4/jopt-simple-5.0.4.jar:$R/org/apache/commons/commons-math3/3.6.1/commons-math3-3.6.1.jar \
 *   org.openjdk.jmh.Main PartitionBenchmark -f 1 -wi 3 -i 5
 * </pre>
 */
@State(org.openjdk.jmh.annotations.Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
public class PartitionBenchmark {

    @Param({"small", "wide"})
    public String weights;

    private long[] w;

    @Setup
    public void setUp() {
        SplittableRandom rnd = new SplittableRandom(8);
        long bound = weights.equals("small") ? 1000 : 1L << 40;
        w = new long[10_000_000];
        for (int i = 0; i < w.length; i++) w[i] = rnd.nextLong(bound);
    }

    @Benchmark
    public Partition.Ranges exact10MInto1024() {
        return Partition.exact(w, 1024);
    }

    @Benchmark
    public Partition.Ranges orb10MInto1024() {
        return Partition.orb(w, 1024);
    }
}
