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
 * says so once, and the report names the change.
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
}
