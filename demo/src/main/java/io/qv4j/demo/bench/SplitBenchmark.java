package io.qv4j.demo.bench;

import io.qv4j.api.Color;
import io.qv4j.topology.HwType;
import io.qv4j.api.Scope;
import io.qv4j.api.Split;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;
import io.qv4j.topology.TopologyBuilder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Planning cost on a big machine (DESIGN.md §9): an 8192-PU synthetic
 * topology {@code package:8 numa:2 l3:4 core:64 pu:2}. Targets: {@code splitAt(PU)} + SPREAD of
 * 4096 tasks ≤ 5 ms; {@code split(1024)} ≤ 5 ms. Each call plans from scratch: a fresh
 * {@link Split} every time (a Split remembers mappings it has made).
 *
 * <pre>
 * mvn -B -q -DskipTests install
 * java -jar demo/target/qv-benchmarks.jar SplitBenchmark
 * </pre>
 */
@State(org.openjdk.jmh.annotations.Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SplitBenchmark {

    private Scope machine;

    @Setup
    public void setUp() {
        machine = Scope.of(synthetic(8, 2, 4, 64, 2));
    }

    /** A uniform {@code package:P numa:N l3:L core:C pu:T} machine, PUs numbered in logical order. */
    static Topology synthetic(int packages, int numa, int l3, int cores, int smt) {
        int pus = packages * numa * l3 * cores * smt;
        TopologyBuilder b = new TopologyBuilder("bench").online(CpuSet.range(0, pus - 1));
        int[] counts = {packages, numa, l3, cores};
        HwType[] types = {HwType.PACKAGE, HwType.NUMANODE, HwType.L3, HwType.CORE};
        int objects = 1;
        for (int k = 0; k < types.length; k++) {
            objects *= counts[k];
            int size = pus / objects;
            for (int o = 0; o < objects; o++) b.add(types[k], o, CpuSet.range(o * size, o * size + size - 1));
        }
        return b.build();
    }

    @Benchmark
    public List<Optional<Scope>> splitAtPuSpread4096() {
        return machine.splitAt(HwType.PU).tasks(4096, Color.SPREAD);
    }

    @Benchmark
    public List<Scope> split1024() {
        return machine.split(1024).pieces();
    }

    /** 1000 does not divide the 4096 cores: the cut-placement program has 96 extras to place. */
    @Benchmark
    public List<Scope> split1000() {
        return machine.split(1000).pieces();
    }

    @Benchmark
    public List<Optional<Scope>> split1024Auto100() {
        return machine.split(1024).tasks(100, Color.AUTO);
    }
}
