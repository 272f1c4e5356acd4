package io.qv4j.agent.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Plain platform threads as the tasks of a split, named by a rule (JDK 17 and 25): {@code pipe-1}
 * and {@code pipe-2} take slots 0 and 1, so under {@code split-at=pu} the first two allowed PUs; a
 * thread no rule names keeps the whole allowed set. Their starts come from JVMTI's thread events
 * where the agent's JNI library is loaded, which also see a thread whose class overrides run(); from
 * the hook in Thread.run() where it is not, which does not.
 */
class ThreadGroupsIT {

    static List<Path> javas() throws Exception {
        return Jvm.javas();
    }

    /** Claims in a directory of this test's own: other JVMs on a shared machine do not crowd it. */
    static String ownClaims() throws Exception {
        Path d = Files.createTempDirectory("qv-claims");
        d.toFile().deleteOnExit();
        return "claims-dir=" + d;
    }

    static Jvm.App app(Path java, String agentArgs) throws Exception {
        String args = agentArgs == null ? null : agentArgs.isEmpty() ? ownClaims() : agentArgs + "," + ownClaims();
        return Jvm.app(java, List.of(), List.of(), args, List.of("target/test-classes"), "io.qv4j.testapps.ThreadsApp", Set.of("thread"));
    }

    @ParameterizedTest
    @MethodSource("javas")
    void aRuleOnThreadNamesPinsEachNumberedThreadToItsOwnPuAndLeavesOthersAlone(Path java) throws Exception {
        Allowed where = Allowed.unrestricted();
        assumeTrue(where.pus().size() >= 2, "needs two allowed PUs, has " + where.allowed());
        Path f = Files.createTempFile("qv-rules", ".properties");
        Files.writeString(f, "rule.pipe.match.thread = pipe-*\nrule.pipe.split-at = pu\n");
        f.toFile().deleteOnExit();
        Jvm.App r = app(java, "config=" + f);
        String out = r.result().toString();
        assertEquals(0, r.result().exitCode(), out);
        assertEquals(where.pus().get(0), r.cpus().get("pipe-1"), out);
        assertEquals(where.pus().get(1), r.cpus().get("pipe-2"), out);
        assertEquals(where.allowed(), r.cpus().get("unnamed"), "no rule names it: " + out);
        assertEquals(where.allowed(), r.cpus().get("own-1"), "no rule names it: " + out);
        Map<String, Object> pool = RulesAnnotationsIT.pool(r, "pipe");
        assertEquals("pipe", pool.get("rule"), out);
        assertEquals("java.lang.Thread", pool.get("class"), out);
        assertEquals(where.pus().size(), ((Number) pool.get("tasks")).intValue(), "no tasks=: one thread per piece: " + out);
    }

    /**
     * A rule's group of unknown size, three threads per allowed PU (split-at=pu): planned again as
     * each thread beyond its plan starts, the threads placed before moved by tid. Three per PU
     * oversubscribes, so all share the allowed PUs (kernel view), with the qv: line; with
     * {@code oversubscribe=true} each PU holds three, never four and two.
     */
    @ParameterizedTest
    @MethodSource("javas")
    void aGroupLargerThanItsPiecesIsDealtEvenlyOrSharesTheScope(Path java) throws Exception {
        Allowed where = Allowed.unrestricted();
        int n = 3 * Math.min(4, where.pus().size());
        Path f = Files.createTempFile("qv-rules", ".properties");
        Files.writeString(f, "rule.loops.match.thread = loop-*\n");
        String scope = String.join(",", where.pus().subList(0, n / 3));
        String opts = "split-at=pu,config=" + f + "," + ownClaims();
        Jvm.App shared = Jvm.app(java, List.of("taskset", "-c", scope), List.of(), opts,
                List.of("target/test-classes"), "io.qv4j.testapps.ThreadsApp", Set.of("thread"), "many", Integer.toString(n));
        assertEquals(n, shared.cpus().size(), shared.result().toString());
        for (Map.Entry<String, String> e : shared.cpus().entrySet()) {
            assertEquals(io.qv4j.topology.CpuSet.parse(scope), io.qv4j.topology.CpuSet.parse(e.getValue()), e.getKey() + ": " + shared.result());
        }
        assertTrue(shared.result().stderr().contains("would oversubscribe pieces"), shared.result().stderr());

        Jvm.App even = Jvm.app(java, List.of("taskset", "-c", scope), List.of(), opts + ",oversubscribe=true",
                List.of("target/test-classes"), "io.qv4j.testapps.ThreadsApp", Set.of("thread"), "many", Integer.toString(n));
        Map<String, Integer> perPu = new java.util.HashMap<>();
        for (String c : even.cpus().values()) perPu.merge(c, 1, Integer::sum);
        Map<String, Integer> expected = new java.util.HashMap<>();
        for (String pu : where.pus().subList(0, n / 3)) expected.put(pu, 3);
        assertEquals(expected, perPu, even.result().toString());
        Files.delete(f);
    }

    @ParameterizedTest
    @MethodSource("javas")
    void withoutARuleNoPlainThreadMovesAndTheResultsAreTheSame(Path java) throws Exception {
        Jvm.App plain = app(java, null);
        Jvm.App r = app(java, "");
        Allowed where = Allowed.unrestricted();
        for (String t : List.of("pipe-1", "pipe-2", "unnamed", "own-1")) assertEquals(where.allowed(), r.cpus().get(t), r.result().toString());
        assertEquals(plain.result().stdout().replaceAll("tid=\\d+", ""), r.result().stdout().replaceAll("tid=\\d+", ""));
        assertTrue(r.result().stderr().isBlank(), r.result().stderr());
        assertNotEquals(0, r.cpus().size());
    }

    @ParameterizedTest
    @MethodSource("javas")
    void aThreadWhoseClassOverridesRunIsPlacedFromTheThreadEventsWithoutRedefiningThread(Path java) throws Exception {
        Allowed where = Allowed.unrestricted();
        Path f = RulesAnnotationsIT.config("rule.own.match.thread = own-*\nrule.own.split-at = pu\n");
        Jvm.App r = Jvm.app(java, List.of(), List.of("-Xlog:redefine+class+load=info"), "verbose=true,config=" + f + "," + ownClaims(),
                List.of("target/test-classes"), "io.qv4j.testapps.ThreadsApp", Set.of("thread"));
        String out = r.result().toString();
        assertEquals(0, r.result().exitCode(), out);
        assertTrue(r.result().stderr().contains("plain threads from JVMTI thread events"), out);
        assertFalse(r.result().stdout().contains("redefined name="), "no class redefined: " + out);
        assertEquals(where.pus().get(0), r.cpus().get("own-1"), "slot 0 of the rule's split: " + out);
        assertEquals(where.allowed(), r.cpus().get("pipe-1"), "no rule names it: " + out);
    }

    @Test
    void withoutTheJniLibraryTheHookInThreadRunPlacesThreadsButNotOneWhoseClassOverridesRun() throws Exception {
        Allowed where = Allowed.unrestricted();
        assumeTrue(where.pus().size() >= 2, "needs two allowed PUs, has " + where.allowed());
        Path jar = Jvm.agentJarWithoutJni();
        Path f = RulesAnnotationsIT.config("rule.pipe.match.thread = pipe-*\nrule.pipe.split-at = pu\nrule.own.match.thread = own-*\nrule.own.split-at = pu\n");
        try {
            for (Path java : javas()) {
                Jvm.App r = Jvm.app(java, jar, List.of(), List.of(), "verbose=true,config=" + f + "," + ownClaims(), List.of("target/test-classes"),
                        "io.qv4j.testapps.ThreadsApp", Set.of("thread"));
                String out = r.result().toString();
                assertEquals(0, r.result().exitCode(), out);
                assertTrue(r.result().stderr().contains("plain threads from Thread.run()"), out);
                assertEquals(where.pus().get(0), r.cpus().get("pipe-1"), out);
                assertEquals(where.pus().get(1), r.cpus().get("pipe-2"), out);
                assertEquals(where.allowed(), r.cpus().get("own-1"), "overrides run(): not seen through Thread.run(): " + out);
            }
        } finally {
            Files.delete(jar);
        }
    }
}
