package io.qv4j.agent.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
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
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The agent placing pool workers, through forked JVMs running PoolApp with the built agent.
 * Placement is checked in the kernel (the workers print their Cpus_allowed_list) and in the JSON
 * report. Every expectation comes from the allowed set the forked JVM runs under ({@link Allowed}):
 * each placement scenario runs unrestricted on JDK 17 and 25, and, where the machine allows two
 * PUs or more, under {@code taskset} on its first PU and on its second (on the running JDK).
 */
class AgentPlacementIT {

    static List<Path> javas() throws Exception {
        return Jvm.javas();
    }

    /** (java, allowed set): every JDK unrestricted, the running one also on single PUs. */
    static List<Arguments> runs() throws Exception {
        List<Arguments> out = new ArrayList<>();
        List<Allowed> sets = Allowed.sets();
        for (Path java : Jvm.javas()) out.add(Arguments.of(java, sets.get(0)));
        for (Allowed a : sets.subList(1, sets.size())) out.add(Arguments.of(Jvm.javas().get(0), a));
        return out;
    }

    static Jvm.App app(Path java, Allowed where, List<String> jvmArgs, String agentArgs, String... appArgs) throws Exception {
        return Jvm.app(java, where.prefix(), jvmArgs, agentArgs, List.of("target/test-classes"), "io.qv4j.testapps.PoolApp",
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

    /** The kernel and the report agree that {@code thread} runs on {@code cpus}. */
    static void pinnedTo(Jvm.App run, String thread, String cpus) {
        assertEquals(cpus, run.cpus().get(thread), "kernel: " + run.result());
        assertEquals(cpus, reportThread(run, thread).get("cpuset"), "report");
    }

    /** Each worker sits on a core of its own when there are enough cores, else on a core or the whole allowed set. */
    static void onDistinctCores(Jvm.App run, Allowed where, List<String> workers) {
        Set<String> seen = new HashSet<>();
        for (String w : workers) {
            String cpus = run.cpus().get(w);
            assertEquals(cpus, reportThread(run, w).get("cpuset"), "report agrees with the kernel for " + w);
            if (where.cores().size() >= workers.size()) {
                assertTrue(where.cores().contains(cpus), w + " on one core of " + where.cores() + ": " + run.result());
            } else {
                assertTrue(where.cores().contains(cpus) || where.allowed().equals(cpus), w + " on a core or the scope: " + run.result());
            }
            seen.add(cpus);
        }
        if (where.cores().size() >= workers.size()) assertEquals(workers.size(), seen.size(), "one core each: " + run.result());
    }

    static void noStrays(Jvm.App run) {
        for (String line : run.result().stderr().split("\n")) {
            if (!line.isBlank() && !line.startsWith("qv: ")) {
                if (line.startsWith("Exception in thread \"victim") || line.startsWith("\tat ")) continue;
                throw new AssertionError("stray stderr line: " + line + "\n" + run.result().stderr());
            }
        }
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("runs")
    void fixedPoolWorkersGetACoreEachSpreadOrTheFirstCorePacked(Path java, Allowed where) throws Exception {
        Jvm.App r = app(java, where, List.of(), "split-at=core,color=spread", "fixed", "2");
        onDistinctCores(r, where, List.of("pool-1-thread-1", "pool-1-thread-2"));
        noStrays(r);
        Jvm.App p = app(java, where, List.of(), "split-at=core,color=packed", "fixed", "1");
        pinnedTo(p, "pool-1-thread-1", where.cores().get(0));
    }

    /**
     * After a dynamic attach, workers that were already running are placed at their next task
     * ({@code getTask} catch-up) when a {@code pools} glob names their pool; pools made before the
     * agent are of unknown origin and otherwise stay unpinned.
     */
    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("runs")
    void workersRunningBeforeAttachArePinnedAtTheirNextTaskWhenNamed(Path java, Allowed where) throws Exception {
        assumeTrue(where.cores().size() >= 2, "on one core a pinned worker looks like an unpinned one");
        Attached named = attach(java, where, "split-at=core,color=spread,pools=pool-*", "5000");
        Set<String> cores = new HashSet<>(named.cpus().values());
        assertEquals(2, cores.size(), "one core each: " + named.result());
        assertTrue(where.cores().containsAll(cores), named.result().toString());
        assertTrue(named.report().contains("\"bound\": true"), named.report());
        Attached unnamed = attach(java, where, "split-at=core,color=spread", "1000");
        assertEquals(Set.of(where.allowed()), new HashSet<>(unnamed.cpus().values()), unnamed.result().toString());
    }

    record Attached(Jvm.Result result, Map<String, String> cpus, String report) {
    }

    private static Attached attach(Path java, Allowed where, String agentArgs, String waitMillis) throws Exception {
        Path report = Files.createTempFile("qv-attach", ".json");
        List<String> jvmArgs = new ArrayList<>(List.of("-Djdk.attach.allowAttachSelf=true",
                "-Dattach.agentJar=" + Jvm.agentJar(), "-Dattach.agentArgs=" + agentArgs + ",report=" + report));
        if (!java.toString().contains("17")) jvmArgs.add("-XX:+EnableDynamicAgentLoading");
        Jvm.App r = app(java, where, jvmArgs, null, "attach", "2", waitMillis);
        assertEquals(0, r.result().exitCode(), r.result().stderr());
        String json = Files.exists(report) ? Files.readString(report) : "";
        Files.deleteIfExists(report);
        return new Attached(r.result(), r.cpus(), json);
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("runs")
    void forkJoinPoolsArePinnedAndTheCommonPoolOnlyWhenAsked(Path java, Allowed where) throws Exception {
        Jvm.App r = app(java, where, List.of(), "split-at=core,color=spread", "fj", "2");
        onDistinctCores(r, where, List.of("ForkJoinPool-1-worker-1", "ForkJoinPool-1-worker-2"));
        List<String> par = List.of("-Djava.util.concurrent.ForkJoinPool.common.parallelism=2");
        Jvm.App on = app(java, where, par, "split-at=core,common-pool=on", "stream");
        Jvm.App off = app(java, where, par, "split-at=core", "stream");
        int pinned = 0;
        for (Map.Entry<String, String> e : on.cpus().entrySet()) {
            if (e.getKey().startsWith("ForkJoinPool.commonPool-worker")) {
                assertTrue(where.cores().contains(e.getValue()) || where.allowed().equals(e.getValue()), on.result().toString());
                if (where.cores().contains(e.getValue())) pinned++;
            }
        }
        assertTrue(pinned > 0, on.result().toString());
        assertFalse(off.cpus().isEmpty(), off.result().toString());
        for (Map.Entry<String, String> e : off.cpus().entrySet()) assertEquals(where.allowed(), e.getValue(), e.getKey());
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("runs")
    void aReplacementWorkerTakesTheSlotOfTheOneThatDied(Path java, Allowed where) throws Exception {
        Jvm.App r = app(java, where, List.of(), "split-at=core,color=packed", "die");
        assertEquals(where.cores().get(0), r.cpus().get("victim-1"), r.result().toString());
        pinnedTo(r, "victim-2", where.cores().get(0));
        assertEquals(0L, reportThread(r, "victim-2").get("slot"));
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("runs")
    void cachedPoolWorkersAreBoundToThePoolScope(Path java, Allowed where) throws Exception {
        Jvm.App r = app(java, where, List.of(), "split-at=core", "cached", "2");
        pinnedTo(r, "pool-1-thread-1", where.allowed());
        pinnedTo(r, "pool-1-thread-2", where.allowed());
        assertEquals(-1L, reportThread(r, "pool-1-thread-1").get("slot"));
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("runs")
    void aSecondPoolGetsTheCoresTheFirstLeftFreeOrSharesWhenThereAreNone(Path java, Allowed where) throws Exception {
        Jvm.App r = app(java, where, List.of(), "split-at=core,color=packed", "two");
        pinnedTo(r, "first-1", where.cores().get(0));
        pinnedTo(r, "second-1", where.cores().size() >= 2 ? where.cores().get(1) : where.cores().get(0));
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("runs")
    void jdkAndAgentThreadsStayUnpinned(Path java, Allowed where) throws Exception {
        Jvm.App r = app(java, where, List.of(), "split-at=core,color=packed", "reaper");
        pinnedTo(r, "pool-1-thread-1", where.cores().get(0));
        int seen = 0;
        for (Map.Entry<String, String> e : r.cpus().entrySet()) {
            if (e.getKey().startsWith("process_reaper") || e.getKey().startsWith("qv-")) {
                assertEquals(where.allowed(), e.getValue(), e.getKey());
                seen++;
            }
        }
        assertTrue(seen > 0, r.result().toString());
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("runs")
    void aDryRunOnASyntheticMachineReportsPiecesAndBindsNothing(Path java, Allowed where) throws Exception {
        Jvm.App r = app(java, where, List.of(), "bind=dry-run,topology=package:2 core:4 pu:2,color=spread", "fixed", "3");
        Set<String> pieces = new HashSet<>();
        for (int i = 1; i <= 3; i++) {
            assertEquals(where.allowed(), r.cpus().get("pool-1-thread-" + i), "kernel: no binding");
            pieces.add((String) reportThread(r, "pool-1-thread-" + i).get("piece"));
        }
        assertEquals(Set.of("core 0 (pus 0-1)", "core 2 (pus 4-5)", "core 4 (pus 8-9)"), pieces);
    }

    /** The report names the CPU kinds of the machine the agent plans for: here an hwloc XML of three kinds, ranked. */
    @Test
    void theReportListsTheMachinesCpuKinds() throws Exception {
        String xml = Path.of("target/test-classes/fixtures/xml/24em64t-2n6c2t-pci-3kinds.xml").toAbsolutePath().toString();
        Jvm.App r = app(Jvm.javas().get(0), Allowed.unrestricted(), List.of(), "bind=dry-run,topology=" + xml, "fixed", "2");
        assertEquals(List.of(Map.of("efficiency", 0L, "cpus", "6-11,18-23"), Map.of("efficiency", 1L, "cpus", "2-5,14-17"),
                Map.of("efficiency", 2L, "cpus", "0-1,12-13")), ((Map<?, ?>) r.report().get("agent")).get("cpukinds"), r.result().toString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("javas")
    void badOptionsLeaveTheApplicationAloneUnlessStrict(Path java) throws Exception {
        Allowed where = Allowed.unrestricted();
        Jvm.App plain = app(java, where, List.of(), null, "calc", "2");
        for (String bad : List.of("colour=spread", "color=purple", "kind=purple", "config=/nonexistent/qv.properties", "split=0", "bind=maybe", "memory=far")) {
            Jvm.App r = app(java, where, List.of(), bad, "calc", "2");
            assertEquals(plain.result().stdout(), r.result().stdout(), bad);
            assertEquals(plain.result().exitCode(), r.result().exitCode(), bad);
            String[] lines = r.result().stderr().strip().split("\n");
            assertEquals(1, lines.length, r.result().stderr());
            assertTrue(lines[0].startsWith("qv: ") && lines[0].endsWith("agent disabled"), lines[0]);
            Jvm.App strict = app(java, where, List.of(), bad + ",strict=true", "calc", "2");
            assertEquals(2, strict.result().exitCode(), bad);
            assertEquals("", strict.result().stdout());
            assertTrue(strict.result().stderr().startsWith("qv: "), strict.result().stderr());
        }
    }

    /**
     * The memory issue's fifth criterion: wherever this runs (one NUMA node here), the memory words
     * pin the workers as without them, change no result, and the policy the report names for the
     * JVM's piece covers no node outside the machine's: {@code bind} over every node is left out.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("javas")
    void memoryWordsPinAsWithoutThemAndChangeNoResult(Path java) throws Exception {
        Allowed where = Allowed.unrestricted();
        Jvm.App plain = app(java, where, List.of(), "split-at=core", "calc", "2");
        for (String word : List.of("interleave", "bind", "local")) {
            Jvm.App calc = app(java, where, List.of(), "split-at=core,memory=" + word, "calc", "2");
            assertEquals(plain.result().stdout(), calc.result().stdout(), word);
            assertEquals(plain.result().exitCode(), calc.result().exitCode(), word);
            Jvm.App r = app(java, where, List.of(), "split-at=core,color=spread,memory=" + word, "fixed", "2");
            onDistinctCores(r, where, List.of("pool-1-thread-1", "pool-1-thread-2"));
            noStrays(r);
            Object jvmMemory = ((Map<?, ?>) r.report().get("agent")).get("jvmMemory");
            if (word.equals("local")) {
                assertNull(jvmMemory, "local: nothing set");
            } else if (jvmMemory == null) {
                assertTrue(word.equals("bind") || r.result().stderr().contains("qv: memory=" + word), "left out, or one line says why: " + r.result());
            } else {
                assertTrue(jvmMemory.toString().matches(word + " nodes [0-9,-]+"), jvmMemory + ": " + r.result());
            }
            // null where the kernel has no numa_maps
            if (r.report().get("memory") instanceof List<?> byNode) for (Object m : byNode) assertTrue(((Number) ((Map<?, ?>) m).get("bytes")).longValue() > 0, "the report's memory by node");
        }
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("runs")
    void verboseOutputIsOnlyTheAgentsOwnLines(Path java, Allowed where) throws Exception {
        Jvm.App r = app(java, where, List.of(), "verbose=true", "fixed", "2");
        noStrays(r);
        assertFalse(r.result().stderr().contains("SLF4J"));
        assertNotEquals("", r.result().stderr());
    }
}
