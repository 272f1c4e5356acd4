package io.qv4j.agent.it;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Never smaller: on a worker the agent pinned to one PU, {@code availableProcessors()} and what the
 * JDK sizes from it when first asked there (a work-stealing pool, {@code Striped64.NCPU}, the
 * common pool, the management bean, the virtual-thread scheduler on JDK 21 and later) are what the
 * same JVM gives without the agent: unrestricted,
 * under {@code taskset} on one PU, and with {@code -XX:ActiveProcessorCount=3}; on JDK 17 and 25.
 */
class ProcessorCountIT {

    private static final String APP = "io.qv4j.testapps.ProcessorsApp";
    private static final List<String> OPENS = List.of("--add-opens", "java.base/java.util.concurrent.atomic=ALL-UNNAMED",
            "--add-opens", "java.base/java.lang=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED");

    static Stream<Arguments> runs() throws Exception {
        List<Arguments> out = new ArrayList<>();
        Allowed all = Allowed.unrestricted();
        for (Path java : Jvm.javas()) {
            out.add(Arguments.of(java, all, List.of(), -1));
            if (Allowed.sets().size() > 1) out.add(Arguments.of(java, Allowed.sets().get(1), List.of(), 1));
            out.add(Arguments.of(java, all, List.of("-XX:ActiveProcessorCount=3"), 3));
        }
        return out.stream();
    }

    /**
     * {@code expected}: the processor count every figure derives from; -1: whatever the JVM answers
     * without the agent (the allowed PUs, or fewer where a CPU quota caps them).
     */
    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("runs")
    void whatAPinnedWorkerAsksIsWhatItGetsWithoutTheAgent(Path java, Allowed where, List<String> flags, int expected) throws Exception {
        List<String> jvmArgs = new ArrayList<>(OPENS);
        jvmArgs.addAll(flags);
        Jvm.App plain = Jvm.app(java, where.prefix(), jvmArgs, null, List.of("target/test-classes"), APP, Set.of("thread"));
        Jvm.App agent = Jvm.app(java, where.prefix(), jvmArgs, "split-at=pu,verbose=true", List.of("target/test-classes"), APP, Set.of("thread"));
        String out = java + " " + where + " " + flags + ":\nwithout: " + plain.result() + "\nwith: " + agent.result();
        assertEquals(0, plain.result().exitCode(), out);
        assertEquals(0, agent.result().exitCode(), out);
        if (where.pus().size() >= 2) {
            // else the run proves nothing: each worker must be on one PU of its own
            assertEquals(2, Set.copyOf(agent.cpus().values()).size(), "workers pinned apart: " + out);
            for (String cpus : agent.cpus().values()) assertEquals(1, where.pus().stream().filter(cpus::equals).count(), "pinned to one PU: " + out);
        }
        String without = sizes(plain, out);
        assertEquals(without, sizes(agent, out), out);
        assertEquals("false", field(without, "classesBefore"), "Striped64 and ForkJoinPool first initialized on the worker: " + out);
        int n = Integer.parseInt(field(without, "available"));
        if (expected > 0) assertEquals(expected, n, out);
        else assertTrue(n >= 1 && n <= where.pus().size(), "the allowed PUs, or fewer under a CPU quota: " + out);
        for (String f : List.of("workStealing", "ncpu", "mxbean")) assertEquals(n, Integer.parseInt(field(without, f)), f + ": " + out);
        if (!java.toString().contains("17")) assertEquals(n, Integer.parseInt(field(without, "virtual")), "the virtual-thread scheduler: " + out);
        assertEquals(Math.max(1, n - 1), Integer.parseInt(field(without, "common")), out);
    }

    private static String sizes(Jvm.App r, String out) {
        for (String line : r.result().stdout().split("\n")) if (line.startsWith("sizes ")) return line;
        throw new AssertionError("no sizes line: " + out);
    }

    private static String field(String line, String name) {
        for (String w : line.split(" ")) if (w.startsWith(name + "=")) return w.substring(name.length() + 1);
        throw new AssertionError("no " + name + " in " + line);
    }
}
