package io.qv4j.agent.cli.status;

import io.qv4j.agent.cli.MainTest;
import io.qv4j.agent.cli.shared.JsonValues;
import io.qv4j.agent.cli.shared.Targets;
import io.qv4j.agent.report.Json;
import io.qv4j.agent.report.JsonReader;
import io.qv4j.agent.report.NodeMemory;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code status PID} as text and JSON from a published report, without attaching to anything. */
class StatusCommandTest {

    /** A report as the agent publishes it with the neighbours watcher on: app-1 waited and was moved, pool io released. */
    static final String REPORT = """
            {"agent": {"jvmScope": "0-3", "policy": "split-at=core color=spread", "bind": "on", "binder": "native"},
             "pools": [
              {"id": 1, "name": "app", "class": "java.util.concurrent.ThreadPoolExecutor", "pinned": true, "tasks": 2,
               "policy": "split-at=core color=spread", "scope": "0-3", "sharesPus": false, "released": false,
               "threads": [
                {"name": "app-1", "tid": 101, "slot": 0, "cpuset": "2", "piece": "core 2 (pu 2)", "bound": true, "exited": false,
                 "moves": 2, "waited": 0.482, "kernel": "2", "matches": true},
                {"name": "app-2", "tid": 102, "slot": 1, "cpuset": "1", "piece": "core 1 (pu 1)", "bound": true, "exited": false,
                 "waited": 0.0, "kernel": "1", "matches": true}]},
              {"id": 2, "name": "io", "class": "java.util.concurrent.ThreadPoolExecutor", "pinned": true, "tasks": 1,
               "policy": "split-at=core color=spread", "scope": "3", "sharesPus": false, "released": true,
               "threads": [
                {"name": "io-1", "tid": 103, "slot": 0, "cpuset": "3", "piece": "core 3 (pu 3)", "bound": true, "exited": false,
                 "kernel": "3", "matches": true}]}],
             "neighbours": {"periodMillis": 500, "moves": 3, "releases": 1}}
            """;

    static Map<String, Object> jvm(String report) {
        Map<String, Object> j = new java.util.LinkedHashMap<>();
        j.put("pid", 4242L);
        j.put("command", "java -cp app.jar Main");
        j.put("java", "17.0.15");
        j.put("agent", Map.of("args", "split-at=core", "attached", true));
        j.put("report", JsonReader.parse(report));
        return j;
    }

    static List<String> text(Map<String, Object> j) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        StatusCommand.text(j, new PrintStream(b, true, StandardCharsets.UTF_8));
        return b.toString(StandardCharsets.UTF_8).lines().toList();
    }

    static String line(List<String> lines, String containing) {
        return lines.stream().filter(l -> l.contains(containing)).findFirst().orElseThrow(() -> new AssertionError("no line with '" + containing + "': " + lines));
    }

    @Test
    void textShowsEachWorkersWaitAndMovesTheReleasedPoolAndTheWatchersLine() {
        List<String> lines = text(jvm(REPORT));
        assertTrue(line(lines, " app-1 ").endsWith("  ok, waited 48 %, moved 2x"), String.join("\n", lines));
        assertTrue(line(lines, " app-2 ").endsWith("  ok, waited 0 %"), "waited but never moved: " + lines);
        assertTrue(line(lines, " io-1 ").endsWith("  ok"), "not watched: no wait, no moves: " + lines);
        assertTrue(line(lines, "pool io ").endsWith(", released: others keep its PUs busy; the kernel balances its workers)"), String.join("\n", lines));
        assertFalse(line(lines, "pool app ").contains("released"), String.join("\n", lines));
        assertEquals("  neighbours: watched every 500 ms, 3 moves, 1 release", line(lines, "neighbours"));
        assertTrue(lines.indexOf(line(lines, "neighbours")) < lines.indexOf(line(lines, "pool app ")), "the watcher's line comes before the pools: " + lines);
    }

    @Test
    void textSaysHowOldTheReportIsInTenthsOfASecond() {
        Map<String, Object> j = jvm(REPORT);
        @SuppressWarnings("unchecked")
        Map<String, Object> report = new java.util.LinkedHashMap<>((Map<String, Object>) j.get("report"));
        report.put("time", System.currentTimeMillis() - 60_000);
        j.put("report", report);
        assertTrue(line(text(j), "report: made ").matches("  report: made 60\\.[0-9] s ago"), String.join("\n", text(j)));
        assertEquals("2.5 s", StatusCommand.age(2_549));
        assertEquals("0.0 s", StatusCommand.age(-30), "a clock a little behind the other");
    }

    @Test
    void textSaysWhichPusAreExclusiveToWhichPoolWhereTheRestRunsAndWhatTheKernelIsolates() {
        String exclusive = REPORT.replace("\"binder\": \"native\"}", "\"binder\": \"native\", \"exclusive\": \"3\", \"rest\": \"0-2\", "
                + "\"exclusiveVmThreads\": \"share\", \"isolated\": \"3\", \"poolScope\": \"0-2\"}")
                .replace("\"scope\": \"3\", \"sharesPus\": false", "\"scope\": \"3\", \"exclusive\": true, \"sharesPus\": false");
        List<String> lines = text(jvm(exclusive));
        assertEquals("  exclusive: pus 3 (pool io pus 3); the rest of the JVM runs on pus 0-2, its GC, JIT and VM threads anywhere (exclusive-vm-threads=share)",
                line(lines, "exclusive:"));
        assertEquals("  isolated by the kernel: pus 3; pools are planned on pus 0-2", line(lines, "isolated"));
        assertTrue(line(lines, "pool io (").contains(", scope 3, exclusive"), String.join("\n", lines));
        assertFalse(line(lines, "pool app (").contains("exclusive"), String.join("\n", lines));
        String svg = StatusCommand.svg(io.qv4j.agent.platform.TopologyInput.input("core:4 pu:1"), jvm(exclusive));
        assertTrue(svg.contains("exclusive pus 3, the rest of the JVM on 0-2"), svg);
    }

    @Test
    void textSaysWhetherTheAgentsCodeIsKeptOffC2OnlyOnceTheAgentAsked() {
        assertTrue(text(jvm(REPORT)).stream().noneMatch(l -> l.contains("jit:")), "fewer than 500 thread starts: nothing to say");
        String added = REPORT.replace("\"binder\": \"native\"}", "\"binder\": \"native\", \"c2Directive\": \"added\"}");
        assertEquals("  jit: the agent's code is kept off C2 (a compiler directive it added once the application had started many threads)", line(text(jvm(added)), "jit:"));
        String refused = REPORT.replace("\"binder\": \"native\"}", "\"binder\": \"native\", \"c2Directive\": \"not added (no jdk.management module)\"}");
        assertEquals("  jit: the agent's code is left to C2: the directive was not added (no jdk.management module)", line(text(jvm(refused)), "jit:"));
    }

    @Test
    void textShowsTheJvmsResidentMemoryByNumaNodeWithShares() {
        Map<String, Object> j = jvm(REPORT);
        j.put("memory", NodeMemory.of(Map.of(0, 3L << 20, 2, 1L << 20)));
        assertEquals("  memory by NUMA node (resident, /proc/PID/numa_maps): node 0 3.0 MiB (75 %), node 2 1.0 MiB (25 %)", line(text(j), "memory by NUMA"));
        assertNull(NodeMemory.of(Map.of()), "no numa_maps: no figure");
        assertTrue(text(jvm(REPORT)).stream().noneMatch(l -> l.contains("memory by NUMA")));
        String svg = StatusCommand.svg(io.qv4j.agent.platform.TopologyInput.input("core:4 pu:1"), j);
        assertTrue(svg.contains("; memory by NUMA node: node 0 3.0 MiB (75 %), node 2 1.0 MiB (25 %)"), svg);
    }

    @Test
    void textSaysTheMemoryAdviceInOneLine() {
        Map<String, Object> j = jvm(REPORT);
        j.put("memoryAdvice", "81 % of the JVM's memory is on node 0, where none of its pinned workers run (they run on nodes 1,3): ...");
        assertTrue(line(text(j), "memory: ").startsWith("  memory: 81 % of the JVM's memory is on node 0"));
        assertTrue(text(jvm(REPORT)).stream().noneMatch(l -> l.startsWith("  memory: ")), "no advice, no line");
    }

    @Test
    void textWithoutTheWatcherSaysNeighboursOffAndShowsNoWaits() {
        String off = REPORT.replaceAll(",\\s*\"neighbours\": \\{[^}]*}", "").replaceAll("\"moves\": 2, \"waited\": 0.482, |\"waited\": 0.0, ", "");
        List<String> lines = text(jvm(off));
        assertEquals("  neighbours: off", line(lines, "neighbours"));
        assertTrue(line(lines, " app-1 ").endsWith("  ok"), String.join("\n", lines));
        assertFalse(String.join("\n", lines).contains("waited"), String.join("\n", lines));
        assertFalse(String.join("\n", lines).contains("moved"), String.join("\n", lines));
    }

    @Test
    void neighboursLineCountsInTheSingularAndPlural() {
        assertEquals("neighbours: watched every 250 ms, 1 move, 0 releases", StatusCommand.neighbours(Map.of("periodMillis", 250L, "moves", 1L, "releases", 0L)));
        assertEquals("neighbours: off", StatusCommand.neighbours(null));
    }

    /** {@code --format json} writes {@link StatusCommand#of}'s map as it is: the watcher's fields go through untouched. */
    @Test
    void jsonKeepsWaitedMovesReleasedAndNeighbours() {
        String report = REPORT.replaceAll(",\\s*\"kernel\": \"\\d\", \"matches\": true", "");
        Map<String, Object> j = StatusCommand.of(ProcessHandle.current().pid(), new Targets.Published("{\"args\": \"\", \"attached\": false}", report, null, new Properties()));
        Map<String, Object> back = JsonValues.map(JsonReader.parse(Json.write(Map.of("jvms", List.of(j)))));
        Map<String, Object> r = JsonValues.map(JsonValues.map(JsonValues.list(back.get("jvms")).get(0)).get("report"));
        assertEquals(Map.of("periodMillis", 500L, "moves", 3L, "releases", 1L), r.get("neighbours"));
        List<Object> pools = JsonValues.list(r.get("pools"));
        Map<String, Object> app1 = JsonValues.map(JsonValues.list(JsonValues.map(pools.get(0)).get("threads")).get(0));
        assertEquals(0.482, app1.get("waited"));
        assertEquals(2L, app1.get("moves"));
        assertTrue(app1.containsKey("kernel"), "the kernel's mask is added beside: " + app1);
        Map<String, Object> io1 = JsonValues.map(JsonValues.list(JsonValues.map(pools.get(1)).get("threads")).get(0));
        assertNull(io1.get("waited"));
        assertEquals(Boolean.TRUE, JsonValues.map(pools.get(1)).get("released"));
        assertEquals(Boolean.FALSE, JsonValues.map(pools.get(0)).get("released"));
    }

    @Test
    void helpNamesTheWaitAndMovesAndTheWatchColumns() {
        MainTest.Run r = MainTest.run("status", "--help");
        assertEquals(0, r.code());
        for (String s : new String[] {"waited N %", "moved Nx", "released", "wait%", "cpu%", "schedstat", "! marks a PU", "20 %"}) {
            assertTrue(r.out().contains(s), "names '" + s + "': " + r.out());
        }
    }
}
