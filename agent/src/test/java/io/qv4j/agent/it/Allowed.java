package io.qv4j.agent.it;

import io.qv4j.agent.report.JsonReader;
import io.qv4j.topology.CpuSet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The PUs a forked JVM runs on, and the pieces a split hands out there, so that the integration
 * tests expect what this machine gives: {@code allowed} as a cpulist, the allowed part of each core
 * with an allowed PU ({@code cores}, in order of their lowest PU, which is the logical order on
 * common machines), and the allowed PUs in that order ({@code pus}). Read from the agent's own
 * {@code topology --format json}, run under the same {@code prefix} (nothing, or
 * {@code taskset -c N}).
 */
public record Allowed(List<String> prefix, String allowed, List<String> cores, List<String> pus) {

    private static final Map<List<String>, Allowed> SEEN = new ConcurrentHashMap<>();

    /** What a JVM started under {@code prefix} may run on. */
    public static Allowed under(List<String> prefix) {
        return SEEN.computeIfAbsent(List.copyOf(prefix), Allowed::read);
    }

    /** The test JVM's own allowed set, inherited by the JVMs it forks. */
    public static Allowed unrestricted() {
        return under(List.of());
    }

    /**
     * Where to run the placement tests: unrestricted and, when the machine allows at least two
     * PUs and has {@code taskset}, on its first allowed PU alone and on its second alone (on a
     * 2-PU machine: {@code taskset -c 0} and {@code taskset -c 1}).
     */
    public static List<Allowed> sets() {
        List<Allowed> out = new ArrayList<>();
        Allowed all = unrestricted();
        out.add(all);
        if (all.pus().size() >= 2 && Files.isExecutable(Path.of("/usr/bin/taskset"))) {
            int[] pus = CpuSet.parse(all.allowed()).toArray();
            out.add(under(List.of("taskset", "-c", String.valueOf(pus[0]))));
            out.add(under(List.of("taskset", "-c", String.valueOf(pus[1]))));
        }
        return out;
    }

    private static Allowed read(List<String> prefix) {
        try {
            Jvm.Result r = Jvm.cli(Jvm.javas().get(0), prefix, "topology", "--format", "json");
            assertEquals(0, r.exitCode(), "topology under " + prefix + ": " + r.stderr());
            Map<?, ?> json = (Map<?, ?>) JsonReader.parse(r.stdout());
            CpuSet allowed = CpuSet.parse((String) json.get("allowed"));
            List<String> cores = new ArrayList<>();
            List<String> pus = new ArrayList<>();
            List<CpuSet> sorted = new ArrayList<>();
            for (Object c : (List<?>) json.get("cores")) sorted.add(CpuSet.parse((String) c));
            sorted.sort((a, b) -> Integer.compare(a.first(), b.first()));
            for (CpuSet core : sorted) {
                CpuSet mine = core.and(allowed);
                if (mine.isEmpty()) continue;
                cores.add(mine.toString());
                for (int pu : mine.toArray()) pus.add(String.valueOf(pu));
            }
            return new Allowed(List.copyOf(prefix), allowed.toString(), List.copyOf(cores), List.copyOf(pus));
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException("cannot read the allowed set under " + prefix, e);
        }
    }

    /** For test names: {@code unrestricted (0-1)}, {@code taskset -c 1}. */
    @Override
    public String toString() {
        return prefix.isEmpty() ? "unrestricted (" + allowed + ")" : String.join(" ", prefix);
    }
}
