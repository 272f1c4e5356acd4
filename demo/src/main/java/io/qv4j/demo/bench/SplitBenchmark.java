package io.qv4j.demo.bench;

import io.qv4j.api.Color;
import io.qv4j.api.PlacementSpec;
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
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Planning cost on a big machine (DESIGN.md §9): an 8192-PU synthetic
 * topology {@code package:8 numa:2 l3:4 core:64 pu:2}. Targets: {@code splitAt(PU)} + SPREAD of
 * 4096 tasks ≤ 5 ms; {@code split(1024)} ≤ 5 ms. Each call plans from scratch: a fresh
 * {@link Split} every time (a Split remembers mappings it has made). The {@code kinds*} rows plan
 * the same machine with three CPU kinds (PUs 0-2047 the fastest, 2048-4095, 4096-8191 the most
 * efficient) through {@link PlacementSpec} with {@code kind=auto}, each kind cut on its own
 * (DESIGN.md §4.5); the {@code spec*} rows are the same calls on the machine of one kind.
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
    private Scope kinds;

    @Setup
    public void setUp() {
        machine = Scope.of(synthetic(8, 2, 4, 64, 2));
        kinds = Scope.of(synthetic(8, 2, 4, 64, 2, 2048, 4096));
    }

    /** The same machine with three CPU kinds: PUs below {@code fast} efficiency 2, below {@code mid} 1, the rest 0. */
    static Topology synthetic(int packages, int numa, int l3, int cores, int smt, int fast, int mid) {
        int pus = packages * numa * l3 * cores * smt;
        return builder(packages, numa, l3, cores, smt)
                .cpuKind(CpuSet.range(0, fast - 1), Map.of(), 2)
                .cpuKind(CpuSet.range(fast, mid - 1), Map.of(), 1)
                .cpuKind(CpuSet.range(mid, pus - 1), Map.of(), 0)
                .build();
    }

    /** A uniform {@code package:P numa:N l3:L core:C pu:T} machine, PUs numbered in logical order. */
    static Topology synthetic(int packages, int numa, int l3, int cores, int smt) {
        return builder(packages, numa, l3, cores, smt).build();
    }

    private static TopologyBuilder builder(int packages, int numa, int l3, int cores, int smt) {
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
        return b;
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

    @Benchmark
    public List<Optional<Scope>> specSplitAtPuSpread4096() {
        return PlacementSpec.splitAt(HwType.PU).plan(machine, 4096);
    }

    @Benchmark
    public List<Optional<Scope>> kindsSplitAtPuSpread4096() {
        return PlacementSpec.splitAt(HwType.PU).plan(kinds, 4096);
    }

    /** More tasks than the 4096 cores: dealt to the kinds by their PUs. */
    @Benchmark
    public List<Optional<Scope>> specSplitAtCoreSpread6000() {
        return PlacementSpec.splitAt(HwType.CORE).plan(machine, 6000);
    }

    @Benchmark
    public List<Optional<Scope>> kindsSplitAtCoreSpread6000() {
        return PlacementSpec.splitAt(HwType.CORE).plan(kinds, 6000);
    }
}
