package io.qv4j.agent.it;

import io.qv4j.agent.report.JsonReader;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The real jar on this machine with its sysfs {@code cache/} directories hidden (an empty tmpfs
 * over each, in a private mount namespace), as on cloud VMs whose sysfs has none: on x86 the caches
 * come from CPUID and {@code split-at=l3} works; elsewhere the message names the level and why.
 */
class HiddenCachesIT {

    private static final boolean X86 = Set.of("amd64", "x86_64").contains(System.getProperty("os.arch"));

    /** A prefix that runs a command with the cache directories hidden, or skips the test where that cannot be done. */
    static List<String> cachesHidden() throws Exception {
        boolean anyCaches;
        try (Stream<Path> s = Files.list(Path.of("/sys/devices/system/cpu"))) {
            anyCaches = s.anyMatch(p -> p.getFileName().toString().matches("cpu\\d+") && Files.isDirectory(p.resolve("cache")));
        }
        if (!anyCaches) return List.of(); // this machine already has none
        boolean unshare;
        try {
            unshare = Jvm.run(List.of("unshare", "-rm", "true")).exitCode() == 0;
        } catch (java.io.IOException e) {
            unshare = false;
        }
        assumeTrue(unshare, "cannot hide the cache directories here: no unprivileged mount namespace");
        return List.of("unshare", "-rm", "sh", "-c",
                "for d in /sys/devices/system/cpu/cpu*/cache; do mount -t tmpfs none \"$d\" || exit 97; done; exec \"$@\"", "sh");
    }

    @Test
    void planSplitAtL3WorksWithTheCacheDirectoriesHidden() throws Exception {
        List<String> hidden = cachesHidden();
        Jvm.Result topo = Jvm.cli(Jvm.javas().get(0), hidden, "topology", "--format", "json");
        assertEquals(0, topo.exitCode(), topo.stderr());
        Map<?, ?> info = (Map<?, ?>) ((Map<?, ?>) JsonReader.parse(topo.stdout())).get("info");
        Jvm.Result r = Jvm.cli(Jvm.javas().get(0), hidden, "plan", "--split-at", "l3", "--tasks", "2", "--format", "json");
        if (!X86) {
            assertEquals("none", info.get("caches.source"), topo.stdout());
            assertEquals(2, r.exitCode(), r.stdout() + r.stderr());
            assertTrue(r.stderr().contains("cannot split at l3") && r.stderr().contains("CPUID exists only on x86"), r.stderr());
            return;
        }
        assertEquals("cpuid", info.get("caches.source"), topo.stdout());
        assertEquals(0, r.exitCode(), r.stderr());
        Map<?, ?> plan = (Map<?, ?>) JsonReader.parse(r.stdout());
        List<?> l3 = (List<?>) ((Map<?, ?>) JsonReader.parse(topo.stdout())).get("l3");
        assertEquals(l3.size(), ((List<?>) plan.get("pieces")).size(), "one piece per L3: " + r.stdout());
        for (Object t : (List<?>) plan.get("tasks")) assertTrue(l3.contains(((Map<?, ?>) t).get("cpus")), "a task on one L3: " + t);
    }

    @Test
    void theAgentSplitsAtL3WithTheCacheDirectoriesHidden() throws Exception {
        assumeTrue(X86, "CPUID is x86 only");
        List<String> hidden = cachesHidden();
        Jvm.Result topo = Jvm.cli(Jvm.javas().get(0), hidden, "topology", "--format", "json");
        List<?> l3 = (List<?>) ((Map<?, ?>) JsonReader.parse(topo.stdout())).get("l3");
        assertTrue(!l3.isEmpty(), topo.stdout());
        for (Path java : Jvm.javas()) {
            Jvm.App run = Jvm.app(java, hidden, List.of(), "split-at=l3,color=spread", List.of("target/test-classes"),
                    "io.qv4j.testapps.PoolApp", Set.of("thread"), "fixed", "2");
            assertEquals(0, run.result().exitCode(), run.result().toString());
            assertEquals(2, run.cpus().size(), run.result().toString());
            for (String cpus : run.cpus().values()) assertTrue(l3.contains(cpus), "each worker on one L3 " + l3 + ": " + run.cpus());
            assertFalse(run.result().stderr().contains("cannot split"), run.result().stderr());
        }
    }
}
