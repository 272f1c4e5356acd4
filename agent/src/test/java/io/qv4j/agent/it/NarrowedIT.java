package io.qv4j.agent.it;

import io.qv4j.agent.report.JsonReader;
import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * An operator narrows a running JVM with {@code taskset -a -p}: workers started afterwards are
 * bound inside the new allowed set (kernel view, {@code /proc/PID/task/TID/status}), the agent
 * says so once, and the report names the change; workers already pinned answer the narrowed
 * scope's processor count within about a second, and after a widening the granted one, pinned again.
 */
class NarrowedIT {

    /** Sends {@code command} to a GrowApp and returns its worker lines, up to {@code done}. */
    static List<String> step(BufferedReader in, OutputStream out, String command) throws Exception {
        out.write((command + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        List<String> lines = new ArrayList<>();
        for (String l; (l = in.readLine()) != null && !l.equals("done"); ) lines.add(l);
        return lines;
    }

    @Test
    @SuppressWarnings("unchecked")
    void workersStartedAfterTasksetNarrowedTheProcessStayInsideTheNewAllowedSet(@TempDir Path tmp) throws Exception {
        CpuSet allowed = NeighboursIT.allowed();
        assumeTrue(allowed.cardinality() >= 2, "needs 2 allowed PUs: narrowing one leaves nothing to escape to");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/taskset")), "needs taskset");
        int only = allowed.toArray()[0];
        Path report = tmp.resolve("report.json");
        Path err = tmp.resolve("stderr.txt");
        List<String> cmd = new ArrayList<>(List.of(Jvm.javas().get(0).toString(),
                "-javaagent:" + Jvm.agentJar() + "=neighbours=off,claims-dir=" + tmp.resolve("claims") + ",report=" + report,
                "-cp", "target/test-classes", "io.qv4j.testapps.GrowApp"));
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        try {
            BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String ready = in.readLine();
            assertTrue(ready != null && ready.startsWith("ready "), ready + " " + Files.readString(err));
            long pid = Long.parseLong(ready.substring(6).strip());
            List<String> before = step(in, p.getOutputStream(), "pool " + allowed.cardinality());
            assertEquals(allowed.cardinality(), before.size(), before + " " + Files.readString(err));

            Jvm.Result ts = Jvm.run(List.of("taskset", "-a", "-c", "-p", String.valueOf(only), String.valueOf(pid)));
            assertEquals(0, ts.exitCode(), ts.toString());
            assertEquals(String.valueOf(only), LiveIT.kernelOf(pid, pid), "taskset narrowed the main thread");

            List<String> after = step(in, p.getOutputStream(), "pool " + allowed.cardinality());
            assertEquals(allowed.cardinality(), after.size(), after + " " + Files.readString(err));
            for (String line : after) {
                String tid = line.split(" ")[2].substring(4);
                assertEquals(String.valueOf(only), LiveIT.kernelOf(pid, Long.parseLong(tid)),
                        "new worker inside the new allowed set: " + line + " " + Files.readString(err));
            }
            for (String mask : LiveIT.kernel(pid, "").values()) {
                assertEquals(String.valueOf(only), mask, "every thread of the process inside pu " + only + ": " + LiveIT.kernel(pid, ""));
            }
            p.getOutputStream().close();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), Files.readString(err));
            String said = Files.readString(err);
            assertEquals(1, said.split("allowed set changed", -1).length - 1, said);
            Map<String, Object> agent = (Map<String, Object>) ((Map<String, Object>) JsonReader.parse(Files.readString(report))).get("agent");
            assertNotNull(agent.get("allowedChange"), agent.toString());
            assertEquals(String.valueOf(only), agent.get("jvmScope"), agent.toString());
        } finally {
            p.destroyForcibly();
        }
    }

    /** Each worker's {@code availableProcessors()} and mask, and the main thread's count last: one {@code count} step. */
    static List<String[]> counts(BufferedReader in, OutputStream out) throws Exception {
        List<String[]> rows = new ArrayList<>();
        for (String l : step(in, out, "count")) {
            String[] w = l.split(" ");
            String n = w[w.length - (w[1].equals("main") ? 1 : 2)].substring(2);
            rows.add(new String[] {w[1], n, w[1].equals("main") ? "" : w[w.length - 1].substring(5)});
        }
        return rows;
    }

    /** Asks for counts until {@code done} holds of them (true) or {@code millis} passed (false). */
    static boolean countsUntil(BufferedReader in, OutputStream out, long millis, java.util.function.Predicate<List<String[]>> done,
                               List<List<String[]>> seen) throws Exception {
        long end = System.nanoTime() + millis * 1_000_000;
        while (true) {
            List<String[]> rows = counts(in, out);
            seen.add(rows);
            if (done.test(rows)) return true;
            if (System.nanoTime() > end) return false;
            Thread.sleep(100);
        }
    }

    /** Every worker answers the main thread's count, and (with {@code single}) runs on one PU of {@code within}. */
    static boolean allAnswerMain(List<String[]> rows, CpuSet within, boolean single) {
        String main = rows.get(rows.size() - 1)[1];
        for (String[] r : rows.subList(0, rows.size() - 1)) {
            CpuSet mask = CpuSet.parse(r[2]);
            if (!r[1].equals(main) || !within.containsAll(mask) || single && mask.cardinality() != 1) return false;
        }
        return true;
    }

    static String show(List<List<String[]>> seen) {
        StringBuilder b = new StringBuilder();
        for (List<String[]> rows : seen) {
            for (String[] r : rows) b.append(r[0]).append(" n=").append(r[1]).append(r[2].isEmpty() ? "" : " cpus=" + r[2]).append("; ");
            b.append('\n');
        }
        return b.toString();
    }

    @Test
    void pinnedWorkersAnswerTheNarrowedScopesCountWithinASecondOfTasksetAndTheGrantedOneAfterWidening(@TempDir Path tmp) throws Exception {
        CpuSet allowed = NeighboursIT.allowed();
        assumeTrue(allowed.cardinality() >= 2, "needs 2 allowed PUs: narrowing one leaves nothing to escape to");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/taskset")), "needs taskset");
        int only = allowed.toArray()[0];
        for (Path java : Jvm.javas()) {
            Path err = tmp.resolve("stderr-" + java.getParent().getParent().getFileName() + ".txt");
            List<String> cmd = List.of(java.toString(),
                    "-javaagent:" + Jvm.agentJar() + "=neighbours=off,verbose=true,claims-dir=" + tmp.resolve("claims-" + err.getFileName()),
                    "-cp", "target/test-classes", "io.qv4j.testapps.GrowApp");
            Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
            try {
                BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                OutputStream out = p.getOutputStream();
                String ready = in.readLine();
                assertTrue(ready != null && ready.startsWith("ready "), ready + " " + Files.readString(err));
                long pid = Long.parseLong(ready.substring(6).strip());
                // one worker per PU: some stay on PU `only`, whose mask taskset leaves as it was
                assertEquals(allowed.cardinality(), step(in, out, "pool " + allowed.cardinality()).size(), Files.readString(err));
                List<List<String[]>> seen = new ArrayList<>();
                assertTrue(countsUntil(in, out, 0, rows -> allAnswerMain(rows, allowed, true), seen),
                        "pinned workers answer the JVM scope's count: " + show(seen) + Files.readString(err));

                Jvm.Result ts = Jvm.run(List.of("taskset", "-a", "-c", "-p", String.valueOf(only), String.valueOf(pid)));
                assertEquals(0, ts.exitCode(), ts.toString());
                seen.clear();
                // the JVM itself answers 1 for one PU (JDK 17 in a container within 20 ms)
                assertTrue(countsUntil(in, out, 3000, rows -> allAnswerMain(rows, CpuSet.parse(String.valueOf(only)), true)
                                && rows.get(rows.size() - 1)[1].equals("1"), seen),
                        java + ": every pinned worker answers what the JVM answers for pu " + only + " within about a second: "
                                + show(seen) + Files.readString(err));
                assertTrue(Files.readString(err).contains("allowed set changed to pus " + only), Files.readString(err));

                ts = Jvm.run(List.of("taskset", "-a", "-c", "-p", allowed.toString(), String.valueOf(pid)));
                assertEquals(0, ts.exitCode(), ts.toString());
                seen.clear();
                assertTrue(countsUntil(in, out, 3000, rows -> allAnswerMain(rows, allowed, true)
                                && !rows.get(rows.size() - 1)[1].equals("1"), seen),
                        java + ": widened again, every worker pinned to one PU and answering the JVM's count: " + show(seen) + Files.readString(err));
                assertTrue(Files.readString(err).contains("allowed set changed to pus " + allowed), show(seen) + Files.readString(err));
                out.close();
                assertTrue(p.waitFor(30, TimeUnit.SECONDS));
                assertEquals(0, p.exitValue(), Files.readString(err));
            } finally {
                p.destroyForcibly();
            }
        }
    }
}
