package io.qv4j.agent.cli.status;

import io.qv4j.agent.cli.shared.JsonValues;
import io.qv4j.agent.cli.shared.Targets;
import io.qv4j.agent.platform.TopologyInput;
import io.qv4j.agent.report.JsonReader;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code status --watch}'s numbers from a fake {@code /proc}: each worker's wait share and the
 * contended PUs; and its end when the JVMs it watches exit.
 */
class StatusWatchTest {

    static final long PID = 4242;
    static final long SECOND = 1_000_000_000L;

    @TempDir
    Path proc;
    StatusWatch watch;
    /** The statuses the watcher would read through the Attach API: one JVM, a pool of three workers on PUs 1, 0 and 1. */
    Map<Long, Map<String, Object>> statuses;

    @BeforeEach
    void setUp() {
        watch = new StatusWatch(List.of(PID), true, 1, true, 1, new PrintStream(new ByteArrayOutputStream()), new PrintStream(new ByteArrayOutputStream()),
                TopologyInput.input("core:2 pu:1"), proc, pid -> statuses.get(pid));
        statuses = Map.of(PID, JsonValues.map(JsonReader.parse("""
                {"pid": 4242, "command": "java -cp app.jar Main",
                 "report": {"agent": {"jvmScope": "0-1"}, "pools": [{"id": 1, "name": "app", "pinned": true, "tasks": 3, "threads": [
                  {"name": "app-1", "tid": 101, "cpuset": "1", "kernel": "1"},
                  {"name": "app-2", "tid": 102, "cpuset": "0", "kernel": "0"},
                  {"name": "app-3", "tid": 103, "cpuset": "1", "kernel": "1"}]}]}}
                """)));
    }

    /** PROC/stat with each PU's busy and idle ticks. */
    void stat(long busy0, long idle0, long busy1, long idle1) throws IOException {
        Files.writeString(proc.resolve("stat"), "cpu  0 0 0 0 0 0 0 0 0 0\ncpu0 " + busy0 + " 0 0 " + idle0 + " 0 0 0 0 0 0\ncpu1 " + busy1 + " 0 0 " + idle1 + " 0 0 0 0 0 0\n");
    }

    /** PROC/PID/task/TID/stat (utime, last PU) and schedstat (ns on the CPU, ns waiting, slices). */
    void task(long tid, String name, long utime, int pu, long waitedNanos) throws IOException {
        Path t = Files.createDirectories(proc.resolve(Long.toString(PID)).resolve("task").resolve(Long.toString(tid)));
        String[] f = new String[50]; // from field 3 (state) on
        Arrays.fill(f, "0");
        f[0] = "R";
        f[11] = Long.toString(utime);
        f[36] = Integer.toString(pu);
        Files.writeString(t.resolve("stat"), tid + " (" + name + ") " + String.join(" ", f) + "\n");
        Files.writeString(t.resolve("schedstat"), "123456789 " + waitedNanos + " 42\n");
    }

    void vanish(long tid) throws IOException {
        try (Stream<Path> s = Files.walk(proc.resolve(Long.toString(PID)).resolve("task").resolve(Long.toString(tid)))) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }

    static Map<String, Object> worker(Map<String, Object> view, String name) {
        Map<String, Object> pool = JsonValues.map(JsonValues.list(JsonValues.map(JsonValues.list(view.get("jvms")).get(0)).get("pools")).get(0));
        return JsonValues.list(pool.get("workers")).stream().map(JsonValues::map).filter(w -> name.equals(w.get("name"))).findFirst().orElseThrow();
    }

    @Test
    void textSaysWhichPusAreExclusiveToWhichPoolAndWhereTheRestRuns() throws IOException {
        stat(100, 900, 100, 900);
        statuses = Map.of(PID, JsonValues.map(JsonReader.parse("""
                {"pid": 4242, "command": "java -cp app.jar Main",
                 "report": {"agent": {"jvmScope": "0-1", "exclusive": "1", "rest": "0"}, "pools": [
                  {"id": 1, "name": "loop", "pinned": true, "exclusive": true, "tasks": 1, "threads": [{"name": "loop-1", "tid": 101, "cpuset": "1", "kernel": "1"}]},
                  {"id": 2, "name": "app", "pinned": true, "tasks": 1, "threads": [{"name": "app-1", "tid": 102, "cpuset": "0", "kernel": "0"}]}]}}
                """)));
        task(101, "loop-1", 1000, 1, 0);
        task(102, "app-1", 1000, 0, 0);
        String text = watch.text(watch.view(statuses, 2 * SECOND), false);
        assertTrue(text.contains("JVM 4242: scope 0-1, exclusive pus 1 (the rest on 0), claims"), text);
        assertTrue(text.contains("  pool loop (exclusive): 1 workers"), text);
        assertTrue(text.contains("  pool app: 1 workers"), text);
    }

    @Test
    void textShowsEachJvmsMemoryByNumaNodeAndTheAdviceUnderItsLine() throws IOException {
        stat(100, 900, 100, 900);
        statuses = Map.of(PID, JsonValues.map(JsonReader.parse("""
                {"pid": 4242, "command": "java -cp app.jar Main",
                 "report": {"agent": {"jvmScope": "0-1"}, "pools": [
                  {"id": 1, "name": "app", "pinned": true, "tasks": 1, "threads": [{"name": "app-1", "tid": 102, "cpuset": "0", "kernel": "0"}]}]},
                 "memory": [{"node": 0, "bytes": 1048576}, {"node": 1, "bytes": 3145728}],
                 "memoryAdvice": "75 % of the JVM's memory is on node 1, where none of its pinned workers run (they run on node 0): ..."}
                """)));
        task(102, "app-1", 1000, 0, 0);
        Map<String, Object> view = watch.view(statuses, 2 * SECOND);
        assertEquals(2, JsonValues.list(JsonValues.map(JsonValues.list(view.get("jvms")).get(0)).get("memory")).size(), "the JSON lines carry it");
        String text = watch.text(view, false);
        assertTrue(text.contains("\n  memory by NUMA node: node 0 1.0 MiB (25 %), node 1 3.0 MiB (75 %)\n"), text);
        assertTrue(text.contains("\n  memory: 75 % of the JVM's memory is on node 1, where"), text);
    }

    @Test
    void waitShareIsTheDeltaOfSchedstatsSecondFieldOverTheWallTimeBetweenRefreshes() throws IOException {
        stat(100, 900, 100, 900);
        task(101, "app-1", 1000, 1, 5_000_000_000L);
        task(102, "app-2", 2000, 0, 0);
        task(103, "app-3", 3000, 1, 7_000_000L);
        Map<String, Object> first = watch.view(statuses, 10 * SECOND);
        assertNull(worker(first, "app-1").get("waited"), "the first reading is a baseline");
        assertEquals("", first.get("contended"));

        stat(130, 970, 190, 910);
        task(101, "app-1", 1050, 1, 5_480_000_000L); // 0.48 s waited in 1 s
        task(102, "app-2", 2090, 0, 190_000_000L); // 0.19 s
        vanish(103);
        Map<String, Object> second = watch.view(statuses, 11 * SECOND);
        assertEquals(0.48, worker(second, "app-1").get("waited"));
        assertEquals(0.19, worker(second, "app-2").get("waited"));
        Map<String, Object> gone = worker(second, "app-3");
        assertNull(gone.get("waited"), "a thread that vanished has no wait: " + gone);
        assertNull(gone.get("pu"), "nor a PU: " + gone);
        assertEquals("1", second.get("contended"), "app-1 waited 48 % on PU 1; app-2 19 % on PU 0 is below " + io.qv4j.agent.load.PuLoad.WAIT);

        // half a second later, though the interval is 1 s: the share is of the time that passed
        task(102, "app-2", 2140, 0, 290_000_000L);
        task(101, "app-1", 1100, 1, 5_480_000_000L);
        Map<String, Object> third = watch.view(statuses, 11 * SECOND + SECOND / 2);
        assertEquals(0.2, worker(third, "app-2").get("waited"));
        assertEquals(0.0, worker(third, "app-1").get("waited"));
        assertEquals("0", third.get("contended"));
    }

    @Test
    void jsonLineHasEachWorkersWaitAndTheContendedPus() throws IOException {
        stat(100, 900, 100, 900);
        task(101, "app-1", 1000, 1, 0);
        task(102, "app-2", 2000, 0, 0);
        watch.view(statuses, SECOND);
        task(101, "app-1", 1050, 1, 600_000_000L);
        task(102, "app-2", 2090, 0, 250_000_000L);
        String line = StatusWatch.oneLine(watch.view(statuses, 2 * SECOND));
        assertFalse(line.contains("\n"), line);
        Map<String, Object> back = JsonValues.map(JsonReader.parse(line));
        assertEquals("0-1", back.get("contended"), line);
        assertEquals(0.6, worker(back, "app-1").get("waited"), line);
        assertEquals(0.25, worker(back, "app-2").get("waited"), line);
        assertTrue(worker(back, "app-3").containsKey("waited"), "a thread never seen is there, its wait null: " + line);
    }

    @Test
    void textHasAWaitColumnAndMarksTheContendedPus() throws IOException {
        stat(100, 900, 100, 900);
        task(101, "app-1", 1000, 1, 0);
        task(102, "app-2", 2000, 0, 0);
        watch.view(statuses, SECOND);
        stat(130, 970, 190, 910);
        task(101, "app-1", 1050, 1, 480_000_000L);
        task(102, "app-2", 2090, 0, 50_000_000L);
        String text = watch.text(watch.view(statuses, 2 * SECOND), false);
        List<String> lines = text.lines().toList();
        assertTrue(text.contains("1: 90%! app-1"), "PU 1 contended: " + text);
        assertTrue(text.contains("0: 30% app-2"), "PU 0 not: " + text);
        assertTrue(lines.contains("! contended: a worker waited 20 % of the interval or more for its PU: pus 1"), text);
        String header = lines.stream().filter(l -> l.contains("worker") && l.contains("tid")).findFirst().orElseThrow();
        assertTrue(header.matches("\\s+worker\\s+tid\\s+pu\\s+cpus\\s+planned\\s+cpu%\\s+wait%\\s+migrations"), header);
        String app1 = lines.stream().filter(l -> l.strip().startsWith("app-1 ")).findFirst().orElseThrow();
        assertTrue(app1.matches("\\s+app-1\\s+101\\s+1\\s+1\\s+1\\s+50\\s+48\\s+0"), app1);
        String app3 = lines.stream().filter(l -> l.strip().startsWith("app-3 ")).findFirst().orElseThrow();
        assertTrue(app3.matches("\\s+app-3\\s+103\\s+-\\s+1\\s+1\\s+-\\s+-\\s+-"), "no task: dashes: " + app3);
    }

    @Test
    void noMarkWhereNoWorkerWaitedEnough() throws IOException {
        stat(100, 900, 100, 900);
        task(101, "app-1", 1000, 1, 0);
        watch.view(statuses, SECOND);
        stat(200, 900, 200, 900);
        task(101, "app-1", 1100, 1, 199_000_000L);
        Map<String, Object> view = watch.view(statuses, 2 * SECOND);
        assertEquals(0.199, worker(view, "app-1").get("waited"), "not rounded up to the threshold");
        String text = watch.text(view, false);
        assertFalse(text.contains("!"), text);
        assertFalse(text.contains("contended"), text);
    }

    @Test
    void waitIsUnknownWithoutAnEarlierReadingAWaitTimeOrTimeBetween() {
        long[] now = {0, 0, 1, 2_000};
        assertNull(StatusWatch.waited(null, now, 10));
        assertNull(StatusWatch.waited(new long[] {0, 0, 1, -1, 0}, now, 10), "no schedstat before");
        assertNull(StatusWatch.waited(new long[] {0, 0, 1, 1_000, 0}, new long[] {0, 0, 1, -1}, 10), "none now");
        assertNull(StatusWatch.waited(new long[] {0, 0, 1, 3_000, 0}, now, 10), "the counter went back: another thread with that tid");
        assertNull(StatusWatch.waited(new long[] {0, 0, 1, 1_000, 10}, now, 10), "no time passed");
        assertEquals(0.5, StatusWatch.waited(new long[] {0, 0, 1, 1_000, 0}, now, 2_000));
        assertEquals(1.0, StatusWatch.waited(new long[] {0, 0, 1, 0, 0}, now, 1_000), "at most all of it");
    }

    /** PROC/PID/stat of a process in {@code state}, child of 1. */
    void process(long pid, String state) throws IOException {
        Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(proc.resolve(Long.toString(pid)).resolve("stat"), pid + " (java) " + state + " 1 " + pid + " 0 0 0\n");
    }

    void exit(long pid) {
        try (Stream<Path> s = Files.walk(proc.resolve(Long.toString(pid)))) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A watch of {@code pids} (json or text) whose reader calls {@code onRead} with how many reads came before. */
    StatusWatch watch(List<Long> pids, boolean json, double interval, long count, ByteArrayOutputStream out, ByteArrayOutputStream err,
            java.util.function.IntConsumer onRead) {
        int[] reads = {0};
        return new StatusWatch(pids, true, interval, json, count, new PrintStream(out, true), new PrintStream(err, true), TopologyInput.input("core:2 pu:1"),
                proc, pid -> {
                    onRead.accept(reads[0]++);
                    Map<String, Object> j = new java.util.LinkedHashMap<>(statuses.get(PID));
                    j.put("pid", pid);
                    return j;
                });
    }

    @Test
    void watchEndsWithinASecondOfItsTargetsExitWithAFinalJsonLine() throws Exception {
        stat(100, 900, 100, 900);
        process(PID, "S");
        long[] died = {0};
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        StatusWatch w = watch(List.of(PID), true, 1, 50, out, err, n -> {
            if (n == 2) {
                exit(PID);
                died[0] = System.nanoTime();
            }
        });
        assertEquals(0, w.run());
        long after = (System.nanoTime() - died[0]) / 1_000_000;
        assertTrue(after < 900, "ended " + after + " ms after the exit, not at the next refresh or the end of --count");
        List<String> lines = out.toString().lines().toList();
        assertEquals(3, lines.size(), "two refreshes, then the end: " + out);
        Map<String, Object> end = JsonValues.map(JsonReader.parse(lines.get(2)));
        assertEquals(List.of(PID), end.get("gone"), lines.get(2));
        assertEquals("every process watched is gone", end.get("end"), lines.get(2));
        assertEquals("", err.toString(), "no 'no such process' lines");
    }

    @Test
    void aKilledTargetLeftAZombieEndsTheWatchWithOneLine() throws Exception {
        stat(100, 900, 100, 900);
        process(PID, "S");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        StatusWatch w = watch(List.of(PID), false, 0.1, 50, out, err, n -> {
            if (n == 1) {
                try {
                    process(PID, "Z"); // killed (kill -9), not yet reaped
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        });
        assertEquals(0, w.run());
        List<String> lines = out.toString().lines().toList();
        assertEquals("qv: process 4242 exited; nothing left to watch", lines.get(lines.size() - 1), out.toString());
        assertEquals(1, lines.stream().filter(l -> l.startsWith("qv4j status --watch")).count(), "one refresh drawn: " + out);
        assertEquals("", err.toString());
    }

    @Test
    void ofTwoTargetsTheDeadOneLeavesTheViewAndTheWatchGoesOn() throws Exception {
        long other = 4343;
        stat(100, 900, 100, 900);
        process(PID, "S");
        process(other, "S");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        StatusWatch w = watch(List.of(PID, other), true, 0.1, 4, out, err, n -> {
            if (n == 3) exit(other); // after the second refresh's reads
        });
        assertEquals(0, w.run());
        List<Map<String, Object>> views = out.toString().lines().map(l -> JsonValues.map(JsonReader.parse(l))).toList();
        assertEquals(4, views.size(), "--count refreshes: " + out);
        List<List<Object>> shown = views.stream().map(v -> JsonValues.list(v.get("jvms")).stream().map(j -> JsonValues.map(j).get("pid")).toList()).toList();
        assertEquals(List.of(List.of(PID, other), List.of(PID), List.of(PID), List.of(PID)), shown, out.toString());
        assertEquals(List.of(other), views.get(1).get("gone"), "said once: " + out);
        assertNull(views.get(2).get("gone"), out.toString());
        assertEquals("", err.toString());
    }

    @Test
    void aTargetGoneBeforeTheFirstRefreshIsSaidOnceAndFails() throws Exception {
        stat(100, 900, 100, 900);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(1, watch(List.of(PID), true, 0.1, 50, out, err, n -> { }).run());
        assertEquals("qv: 4242: no such process\n", err.toString());
        assertEquals("", out.toString());
    }

    /** A watch whose reader refuses (the JVM's attach connection broke), after {@code onRefuse}. */
    StatusWatch refusing(boolean json, ByteArrayOutputStream out, ByteArrayOutputStream err, Runnable onRefuse) {
        return new StatusWatch(List.of(PID), true, 0.1, json, 50, new PrintStream(out, true), new PrintStream(err, true), TopologyInput.input("core:2 pu:1"),
                proc, pid -> {
                    onRefuse.run();
                    throw new Targets.Refusal(pid + ": cannot read the agent's status: Premature EOF");
                });
    }

    @Test
    void aTargetThatEndsWhileTheFirstRefreshReadsItIsGoneNotRefused() throws Exception {
        stat(100, 900, 100, 900);
        process(PID, "S");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(0, refusing(true, out, err, () -> exit(PID)).run());
        Map<String, Object> end = JsonValues.map(JsonReader.parse(out.toString().strip()));
        assertEquals(List.of(PID), end.get("gone"), out.toString());
        assertEquals("every process watched is gone", end.get("end"), out.toString());
        assertEquals("", err.toString(), "no refusal said for a JVM that was ending");
    }

    @Test
    void aTargetGoneAMomentAfterItsReadBrokeIsGoneToo() throws Exception {
        stat(100, 900, 100, 900);
        process(PID, "S");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread later = new Thread(() -> {
            try {
                Thread.sleep(StatusWatch.ENDING_MILLIS / 3);
                process(PID, "Z");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertEquals(0, refusing(false, out, err, later::start).run());
        later.join();
        assertEquals("qv: process 4242 exited; nothing left to watch", out.toString().strip());
        assertEquals("", err.toString());
    }

    @Test
    void aTargetThatEndsWhileAReadWaitsForItsAttachListenerEndsTheWatchAtOnce() throws Exception {
        stat(100, 900, 100, 900);
        process(PID, "S");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        // the reader waits as the Attach API waits for an exiting JVM's listener: seconds, then refuses
        StatusWatch w = refusing(true, out, err, () -> {
            try {
                process(PID, "Z");
                Thread.sleep(30_000);
            } catch (InterruptedException | IOException e) {
                // given up: the watch cancels the read
            }
        });
        long t0 = System.nanoTime();
        assertEquals(0, w.run());
        long took = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(took < 3_000, "ended after " + took + " ms, not when the Attach API gave up (5.8 s seen)");
        Map<String, Object> end = JsonValues.map(JsonReader.parse(out.toString().strip()));
        assertEquals(List.of(PID), end.get("gone"), out.toString());
        assertEquals("", err.toString(), "no refusal said for a JVM that was ending");
    }
}
