package io.qv4j.agent.it;

import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * JDK 24 and later keep native access per module: the agent's binder gets it for its own module
 * (no flag, no warning, pinned also under {@code --illegal-native-access=deny}), and the
 * application's own native code gets exactly the JVM's answer it gets without the agent.
 */
class NativeAccessIT {

    /** A JDK 24 or later under /usr/lib/jvm; the test is skipped without one. */
    static Path newJdk() throws Exception {
        Path java = Jvm.atLeast(24);
        assumeTrue(java != null, "a JDK 24 or later under /usr/lib/jvm");
        return java;
    }

    /** The JVM's warning lines (the agent's own lines start with qv:). */
    static List<String> warnings(String stderr) {
        return stderr.lines().filter(l -> l.startsWith("WARNING:")).toList();
    }

    /** Every worker runs on one PU of the allowed set, each on another where there are enough: pinned. */
    static void assertPinned(Jvm.App run) {
        CpuSet allowed = CpuSet.parse(Allowed.unrestricted().allowed());
        assertEquals(2, run.cpus().size(), run.result().toString());
        for (String c : run.cpus().values()) {
            assertTrue(allowed.containsAll(CpuSet.parse(c)) && (allowed.cardinality() < 2 || CpuSet.parse(c).cardinality() == 1),
                    "pinned: " + run.cpus() + " " + run.result());
        }
        if (allowed.cardinality() >= 2) assertEquals(2, Set.copyOf(run.cpus().values()).size(), run.cpus().toString());
    }

    static Jvm.App nativeApp(Path java, List<String> flags, boolean agent) throws Exception {
        return Jvm.app(java, List.of(), flags, agent ? "split-at=core,color=spread" : null, List.of("target/test-classes"),
                "io.qv4j.testapps.PoolApp", Set.of("thread"), "native", "2");
    }

    @Test
    void withDefaultFlagsTheAgentPrintsNoWarningAndPins() throws Exception {
        Jvm.App run = Jvm.app(newJdk(), List.of(), List.of(), "split-at=core,color=spread", List.of("target/test-classes"),
                "io.qv4j.testapps.PoolApp", Set.of("thread"), "fixed", "2");
        assertEquals(0, run.result().exitCode(), run.result().toString());
        assertEquals(List.of(), warnings(run.result().stderr()), run.result().stderr());
        assertEquals("native", ((java.util.Map<?, ?>) run.report().get("agent")).get("binder"), run.report().toString());
        assertPinned(run);
    }

    @Test
    void underDenyTheWorkersArePinnedAndTheOutputIsUnchanged() throws Exception {
        Path java = newJdk();
        List<String> deny = List.of("--illegal-native-access=deny");
        Jvm.App with = Jvm.app(java, List.of(), deny, "split-at=core,color=spread", List.of("target/test-classes"),
                "io.qv4j.testapps.PoolApp", Set.of("thread"), "fixed", "2");
        Jvm.App without = Jvm.app(java, List.of(), deny, null, List.of("target/test-classes"),
                "io.qv4j.testapps.PoolApp", Set.of("thread"), "fixed", "2");
        assertEquals(0, with.result().exitCode(), with.result().toString());
        assertFalse(with.result().stderr().contains("denied"), with.result().stderr());
        assertPinned(with);
        assertEquals(without.result().stdout().lines().map(l -> l.replaceAll(" tid=\\d+ cpus=\\S+", "")).sorted().toList(),
                with.result().stdout().lines().map(l -> l.replaceAll(" tid=\\d+ cpus=\\S+", "")).sorted().toList());
    }

    @Test
    void theApplicationsOwnNativeLoadGetsTheJvmsAnswerAsWithoutTheAgent() throws Exception {
        Path java = newJdk();
        for (List<String> flags : List.of(List.<String>of(), List.of("--illegal-native-access=deny"))) {
            Jvm.App with = nativeApp(java, flags, true);
            Jvm.App without = nativeApp(java, flags, false);
            String load = without.result().stdout().lines().filter(l -> l.startsWith("load ")).findFirst().orElseThrow();
            assertEquals(load, with.result().stdout().lines().filter(l -> l.startsWith("load ")).findFirst().orElse(null), flags.toString());
            assertEquals(warnings(without.result().stderr()), warnings(with.result().stderr()), flags + "\n" + with.result().stderr());
            if (flags.isEmpty()) {
                assertTrue(load.startsWith("load java.lang.UnsatisfiedLinkError"), load);
                assertTrue(warnings(without.result().stderr()).stream().anyMatch(l -> l.contains("io.qv4j.testapps.PoolApp")), without.result().stderr());
            } else {
                assertTrue(load.startsWith("load java.lang.IllegalCallerException: Illegal native access from an unnamed module"), load);
            }
            assertPinned(with);
        }
    }

    @Test
    void attachPinsAPoolMadeAfterwardsWithNoNativeAccessWarning(@TempDir Path tmp) throws Exception {
        Path java = newJdk();
        Path err = tmp.resolve("stderr.txt");
        Process p = new ProcessBuilder(java.toString(), "-XX:+EnableDynamicAgentLoading", "-cp", "target/test-classes", "io.qv4j.testapps.GrowApp")
                .redirectError(err.toFile()).start();
        try {
            BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            OutputStream out = p.getOutputStream();
            String ready = in.readLine();
            assertTrue(ready != null && ready.startsWith("ready "), ready + " " + Files.readString(err));
            String pid = ready.substring(6).strip();
            Jvm.Result attach = Jvm.cli(java, List.of(), "attach", pid, "split-at=core,neighbours=off,claims-dir=" + tmp.resolve("claims"));
            assertEquals(0, attach.exitCode(), attach.toString());
            assertEquals(List.of(), warnings(attach.stderr()), attach.stderr());
            CpuSet allowed = CpuSet.parse(Allowed.unrestricted().allowed());
            List<String> workers = NarrowedIT.step(in, out, "pool 2");
            assertEquals(2, workers.size(), workers + " " + Files.readString(err));
            Set<String> pus = new java.util.HashSet<>();
            for (String w : workers) {
                CpuSet c = CpuSet.parse(w.substring(w.indexOf("cpus=") + 5));
                assertTrue(allowed.containsAll(c) && (allowed.cardinality() < 2 || c.cardinality() == 1), workers.toString());
                pus.add(c.toString());
            }
            if (allowed.cardinality() >= 2) assertEquals(2, pus.size(), workers.toString());
            out.close();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            assertEquals(List.of(), warnings(Files.readString(err)), Files.readString(err));
        } finally {
            p.destroyForcibly();
        }
    }
}
