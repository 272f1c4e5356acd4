package io.qv4j.agent.it;

import io.qv4j.agent.report.Json;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 4 acceptance, criteria 1-10, through forked JVMs (JDK 17 and 25) running PoolApp with the
 * built agent. Placement is checked in the kernel (the workers print their Cpus_allowed_list) and
 * in the JSON report. This machine: 2 PUs (0, 1), one core each.
 */
class AgentPlacementIT {

    static List<Path> javas() throws Exception {
        return Jvm.javas();
    }

    static Jvm.App app(Path java, List<String> prefix, List<String> jvmArgs, String agentArgs, String... appArgs) throws Exception {
        return Jvm.app(java, prefix, jvmArgs, agentArgs, List.of("target/test-classes"), "io.qv4j.testapps.PoolApp",
                Set.of("thread", "task"), appArgs);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> reportThread(Jvm.App run, String name) {
        for (Object p : (List<Object>) run.report().get("pools")) {
            for (Object t : (List<Object>) ((Map<String, Object>) p).get("threads")) {
                if (name.equals(((Map<String, Object>) t).get("name"))) return (Map<String, Object>) t;
            }
        }
        throw new AssertionError("thread " + name + " not in the report: " + run.report());
    }

    static void pinnedTo(Jvm.App run, String thread, String cpus) {
        assertEquals(cpus, run.cpus().get(thread), "kernel: " + run.result());
        assertEquals(cpus, reportThread(run, thread).get("cpuset"), "report");
    }

    static void noStrays(Jvm.App run) {
        for (String line : run.result().stderr().split("\n")) {
            if (!line.isBlank() && !line.startsWith("qv: ")) {
                if (line.startsWith("Exception in thread \"victim") || line.startsWith("\tat ")) continue;
                throw new AssertionError("stray stderr line: " + line + "\n" + run.result().stderr());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("javas")
    void c1FixedPoolSpreadAndPacked(Path java) throws Exception {
        Jvm.App r = app(java, List.of(), List.of(), "split-at=core,color=spread", "fixed", "2");
        Set<String> pus = new HashSet<>(List.of(r.cpus().get("pool-1-thread-1"), r.cpus().get("pool-1-thread-2")));
        assertEquals(Set.of("0", "1"), pus, r.result().toString());
        pinnedTo(r, "pool-1-thread-1", r.cpus().get("pool-1-thread-1"));
        pinnedTo(r, "pool-1-thread-2", r.cpus().get("pool-1-thread-2"));
        noStrays(r);
        Jvm.App p = app(java, List.of(), List.of(), "split-at=core,color=packed", "fixed", "1");
        pinnedTo(p, "pool-1-thread-1", "0");
    }

    /**
     * After a dynamic attach, workers that were already running are placed at their next task
     * ({@code getTask} catch-up) when a {@code pools} glob names their pool; pools made before the
     * agent are of unknown origin and otherwise stay unpinned (DESIGN.md §6.2).
     */
    @ParameterizedTest
    @MethodSource("javas")
    void workersRunningBeforeAttachArePinnedAtTheirNextTaskWhenNamed(Path java) throws Exception {
        Attached named = attach(java, "split-at=core,color=spread,pools=pool-*", "5000");
        assertEquals(Set.of("0", "1"), new HashSet<>(named.cpus().values()), named.result().toString());
        assertTrue(named.report().contains("\"bound\": true"), named.report());
        Attached unnamed = attach(java, "split-at=core,color=spread", "1000");
        assertEquals(Set.of("0-1"), new HashSet<>(unnamed.cpus().values()), unnamed.result().toString());
    }

    record Attached(Jvm.Result result, Map<String, String> cpus, String report) {
    }

    private static Attached attach(Path java, String agentArgs, String waitMillis) throws Exception {
        Path report = Files.createTempFile("qv-attach", ".json");
        List<String> jvmArgs = new ArrayList<>(List.of("-Djdk.attach.allowAttachSelf=true",
                "-Dattach.agentJar=" + Jvm.agentJar(), "-Dattach.agentArgs=" + agentArgs + ",report=" + report));
        if (!java.toString().contains("17")) jvmArgs.add("-XX:+EnableDynamicAgentLoading");
        Jvm.App r = app(java, List.of(), jvmArgs, null, "attach", "2", waitMillis);
        assertEquals(0, r.result().exitCode(), r.result().stderr());
        String json = Files.exists(report) ? Files.readString(report) : "";
        Files.deleteIfExists(report);
        return new Attached(r.result(), r.cpus(), json);
    }

    @ParameterizedTest
    @MethodSource("javas")
    void c2ForkJoinAndCommonPool(Path java) throws Exception {
        Jvm.App r = app(java, List.of(), List.of(), "split-at=core,color=spread", "fj", "2");
        assertEquals(Set.of("0", "1"), new HashSet<>(List.of(r.cpus().get("ForkJoinPool-1-worker-1"), r.cpus().get("ForkJoinPool-1-worker-2"))), r.result().toString());
        List<String> par = List.of("-Djava.util.concurrent.ForkJoinPool.common.parallelism=2");
        Jvm.App on = app(java, List.of(), par, "split-at=core,common-pool=on", "stream");
        Jvm.App off = app(java, List.of(), par, "split-at=core", "stream");
        int pinned = 0;
        for (Map.Entry<String, String> e : on.cpus().entrySet()) {
            if (e.getKey().startsWith("ForkJoinPool.commonPool-worker")) {
                assertTrue(e.getValue().equals("0") || e.getValue().equals("1"), on.result().toString());
                pinned++;
            }
        }
        assertTrue(pinned > 0, on.result().toString());
        for (Map.Entry<String, String> e : off.cpus().entrySet()) assertEquals("0-1", e.getValue(), e.getKey());
    }

    @ParameterizedTest
    @MethodSource("javas")
    void c3ReplacementTakesTheSameSlot(Path java) throws Exception {
        Jvm.App r = app(java, List.of(), List.of(), "split-at=core,color=packed", "die");
        assertEquals("0", r.cpus().get("victim-1"), r.result().toString());
        pinnedTo(r, "victim-2", "0");
        assertEquals(0L, reportThread(r, "victim-2").get("slot"));
    }

    @ParameterizedTest
    @MethodSource("javas")
    void c4CachedPoolBoundToThePoolScope(Path java) throws Exception {
        Jvm.App r = app(java, List.of(), List.of(), "split-at=core", "cached", "2");
        pinnedTo(r, "pool-1-thread-1", "0-1");
        pinnedTo(r, "pool-1-thread-2", "0-1");
        assertEquals(-1L, reportThread(r, "pool-1-thread-1").get("slot"));
    }

    @ParameterizedTest
    @MethodSource("javas")
    void c5TwoPoolsGetDifferentPus(Path java) throws Exception {
        Jvm.App r = app(java, List.of(), List.of(), "split-at=core,color=packed", "two");
        pinnedTo(r, "first-1", "0");
        pinnedTo(r, "second-1", "1");
    }

    @ParameterizedTest
    @MethodSource("javas")
    void c6JdkAndAgentThreadsUnpinned(Path java) throws Exception {
        Jvm.App r = app(java, List.of(), List.of(), "split-at=core,color=packed", "reaper");
        pinnedTo(r, "pool-1-thread-1", "0");
        int seen = 0;
        for (Map.Entry<String, String> e : r.cpus().entrySet()) {
            if (e.getKey().startsWith("process_reaper") || e.getKey().startsWith("qv-")) {
                assertEquals("0-1", e.getValue(), e.getKey());
                seen++;
            }
        }
        assertTrue(seen > 0, r.result().toString());
    }

    @ParameterizedTest
    @MethodSource("javas")
    @SuppressWarnings("unchecked")
    void c7DryRunOnASyntheticMachine(Path java) throws Exception {
        Jvm.App r = app(java, List.of(), List.of(), "bind=dry-run,topology=package:2 core:4 pu:2,color=spread", "fixed", "3");
        Set<String> pieces = new HashSet<>();
        for (int i = 1; i <= 3; i++) {
            assertEquals("0-1", r.cpus().get("pool-1-thread-" + i), "kernel: no binding");
            pieces.add((String) reportThread(r, "pool-1-thread-" + i).get("piece"));
        }
        assertEquals(Set.of("core 0 (pus 0-1)", "core 2 (pus 4-5)", "core 4 (pus 8-9)"), pieces);
    }

    @ParameterizedTest
    @MethodSource("javas")
    void c8UnderTaskset(Path java) throws Exception {
        Jvm.App r = app(java, List.of("taskset", "-c", "1"), List.of(), "split-at=core", "fixed", "2");
        pinnedTo(r, "pool-1-thread-1", "1");
        pinnedTo(r, "pool-1-thread-2", "1");
    }

    @ParameterizedTest
    @MethodSource("javas")
    void c9BadOptionsLeaveTheAppAlone(Path java) throws Exception {
        Jvm.App plain = app(java, List.of(), List.of(), null, "calc", "2");
        for (String bad : List.of("colour=spread", "color=purple", "config=/nonexistent/qv.properties", "split=0", "bind=maybe")) {
            Jvm.App r = app(java, List.of(), List.of(), bad, "calc", "2");
            assertEquals(plain.result().stdout(), r.result().stdout(), bad);
            assertEquals(plain.result().exitCode(), r.result().exitCode(), bad);
            String[] lines = r.result().stderr().strip().split("\n");
            assertEquals(1, lines.length, r.result().stderr());
            assertTrue(lines[0].startsWith("qv: ") && lines[0].endsWith("agent disabled"), lines[0]);
            Jvm.App strict = app(java, List.of(), List.of(), bad + ",strict=true", "calc", "2");
            assertEquals(2, strict.result().exitCode(), bad);
            assertEquals("", strict.result().stdout());
            assertTrue(strict.result().stderr().startsWith("qv: "), strict.result().stderr());
        }
    }

    @ParameterizedTest
    @MethodSource("javas")
    void c10OnlyOurOwnLines(Path java) throws Exception {
        Jvm.App r = app(java, List.of(), List.of(), "verbose=true", "fixed", "2");
        noStrays(r);
        assertFalse(r.result().stderr().contains("SLF4J"));
        assertNotEquals("", r.result().stderr());
    }
}
