package io.qv4j.agent.it;

import io.qv4j.agent.report.JsonReader;
import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The real jar's {@code topology} command on this machine, in forked JVMs. */
class TopologyCliIT {

    static List<Path> javas() throws Exception {
        return Jvm.javas();
    }

    static String procStatus(String key) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith(key + ":")) return line.substring(key.length() + 1).strip();
        }
        throw new AssertionError(key + " not in /proc/self/status");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("javas")
    void liveDiscoveryAgreesWithSysfs(Path java) throws Exception {
        Jvm.Result r = Jvm.cli(java, List.of(), "topology", "--format", "json");
        assertEquals(0, r.exitCode(), r.stderr());
        Map<?, ?> json = (Map<?, ?>) JsonReader.parse(r.stdout());
        assertEquals(Files.readString(Path.of("/sys/devices/system/cpu/online")).strip(), json.get("online"));
        assertEquals(procStatus("Cpus_allowed_list"), json.get("allowed"));
        long pus = Files.list(Path.of("/sys/devices/system/cpu")).filter(p -> p.getFileName().toString().matches("cpu\\d+"))
                .filter(p -> Files.isDirectory(p.resolve("topology"))).count();
        assertEquals(pus, ((List<?>) json.get("cores")).stream().mapToLong(c -> c.toString().split(",").length).sum(),
                "every online PU sits in exactly one core");
        assertTrue(r.stderr().isBlank(), "no noise on stderr: " + r.stderr());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("javas")
    void underTasksetTheAllowedSetIsTheTasksetOne(Path java) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/taskset")), "taskset not installed");
        int[] allowed = CpuSet.parse(procStatus("Cpus_allowed_list")).toArray();
        assumeTrue(allowed.length >= 2, "needs two allowed PUs");
        String second = String.valueOf(allowed[1]);
        Jvm.Result r = Jvm.cli(java, List.of("taskset", "-c", second), "topology", "--format", "json");
        assertEquals(0, r.exitCode(), r.stderr());
        Map<?, ?> json = (Map<?, ?>) JsonReader.parse(r.stdout());
        assertEquals(second, json.get("allowed"));
        assertFalse(second.equals(json.get("online")), "online is the machine, not the affinity");
    }

    @Test
    void textDrawingNamesEveryOnlinePu() throws Exception {
        Jvm.Result r = Jvm.cli(Jvm.javas().get(0), List.of(), "topology");
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.stdout().startsWith("Machine: "), r.stdout());
        for (String pu : Files.readString(Path.of("/sys/devices/system/cpu/online")).strip().split(",")) {
            if (!pu.contains("-")) assertTrue(r.stdout().contains("PU " + pu), r.stdout());
        }
    }

    @Test
    void aFifoInADumpIsOneLineAndExitCodeTwo(@TempDir Path dump) throws Exception {
        Path cpu = dump.resolve("sys/devices/system/cpu");
        Files.createDirectories(cpu.resolve("cpu0/topology"));
        Files.writeString(cpu.resolve("online"), "0");
        Path fifo = cpu.resolve("cpu0/cpu_capacity");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Jvm.Result r = Jvm.cli(Jvm.javas().get(0), List.of(), "topology", "--fsroot", dump.toString()); // today's jar hung here
        assertEquals(2, r.exitCode(), r.stderr());
        assertEquals("qv: " + fifo + ": not a regular file", r.stderr().strip());
    }

    @Test
    void badInputIsOneLineAndExitCodeTwo() throws Exception {
        Jvm.Result r = Jvm.cli(Jvm.javas().get(0), List.of(), "topology", "--input", "package:2 bogus:3");
        assertEquals(2, r.exitCode());
        assertEquals(1, r.stderr().strip().lines().count(), r.stderr());
        assertTrue(r.stderr().contains("bogus"), r.stderr());
        Jvm.Result debug = Jvm.cli(Jvm.javas().get(0), List.of(), "topology", "--input", "package:2 bogus:3", "--debug");
        assertEquals(2, debug.exitCode());
        assertTrue(debug.stderr().contains("\tat "), "--debug shows the stack trace: " + debug.stderr());
    }
}
