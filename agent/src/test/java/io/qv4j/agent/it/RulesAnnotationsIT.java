package io.qv4j.agent.it;

import io.qv4j.api.Placement;
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
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Rules, {@code @Placement}, {@code @Bind} and {@code QvExecutors}, through forked JVMs (JDK 17 and
 * 25) running AnnotatedApp with the built agent; placement checked in the kernel (threads print
 * their Cpus_allowed_list) and in the report. Expectations come from the allowed set the JVMs run
 * under ({@link Allowed}): the global option split-at=machine puts an unannotated pool's workers on
 * all of it; annotations and rules use split-at=pu with a piece number, piece {@code i} being the
 * {@code i}-th allowed PU. Tests that name piece 1 need two allowed PUs.
 */
class RulesAnnotationsIT {

    static List<Path> javas() throws Exception {
        return Jvm.javas();
    }

    /** The allowed set, after checking it has the two PUs that pieces 0 and 1 need. */
    static Allowed twoPus() {
        Allowed where = Allowed.unrestricted();
        assumeTrue(where.pus().size() >= 2, "needs two allowed PUs, has " + where.allowed());
        return where;
    }

    /** The api classes (for the annotations), where the test itself found them. */
    static String apiPath() throws Exception {
        return Path.of(Placement.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    static Jvm.App app(Path java, String agentArgs, List<String> extraCp, String mode) throws Exception {
        List<String> cp = new ArrayList<>(List.of("target/test-classes", apiPath()));
        cp.addAll(extraCp);
        return Jvm.app(java, List.of(), List.of(), agentArgs, cp, "io.qv4j.testapps.AnnotatedApp", Set.of("thread", "call"), mode);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> pool(Jvm.App run, String name) {
        for (Object p : (List<Object>) run.report().get("pools")) {
            if (name.equals(((Map<String, Object>) p).get("name"))) return (Map<String, Object>) p;
        }
        throw new AssertionError("pool " + name + " not in the report: " + run.report());
    }

    static Path config(String text) throws Exception {
        Path f = Files.createTempFile("qv-rules", ".properties");
        Files.writeString(f, text);
        f.toFile().deleteOnExit();
        return f;
    }

    @ParameterizedTest
    @MethodSource("javas")
    void annotationsOnMethodsClassesAndFieldsTheInnermostWins(Path java) throws Exception {
        Allowed where = twoPus();
        String pu0 = where.pus().get(0);
        String pu1 = where.pus().get(1);
        Jvm.App r = app(java, "split-at=machine", List.of(), "ann");
        String out = r.result().toString();
        assertEquals(pu1, r.cpus().get("m-1"), "method: " + out);
        assertEquals(pu0, r.cpus().get("c-1"), "class: " + out);
        assertEquals(pu1, r.cpus().get("i-1"), "method inside an annotated class: " + out);
        assertEquals(pu1, r.cpus().get("n-1"), "annotated method called from an annotated class: " + out);
        assertEquals(pu1, r.cpus().get("f-1"), "instance field (newSingleThreadExecutor wrapper): " + out);
        assertEquals(pu0, r.cpus().get("s-1"), "static field: " + out);
        assertEquals(where.allowed(), r.cpus().get("u-1"), "unannotated, after an annotated method threw: " + out);
        assertEquals("@Placement on io.qv4j.testapps.AnnotatedApp.inMethod()", pool(r, "m").get("reason"));
        assertEquals("@Placement on field io.qv4j.testapps.AnnotatedApp$Holder.STATIC", pool(r, "s").get("reason"));
        assertEquals("split-at=pu color=1", pool(r, "f").get("policy"));
        assertEquals("split-at=machine color=spread", pool(r, "u").get("policy"));
        assertEquals("bind", pool(r, "m").get("memory"), "the annotation's memory word");
        assertEquals("local", pool(r, "u").get("memory"));
        Object nodes = ((Map<?, ?>) ((List<?>) pool(r, "m").get("threads")).get(0)).get("memoryNodes");
        assertTrue(nodes instanceof String s && !s.isEmpty(), "the worker bound its pages to its PU's node: " + pool(r, "m"));
        assertEquals(1, r.result().stderr().strip().isEmpty() ? 1 : 0, "nothing on stderr without verbose: " + r.result().stderr());
    }

    @ParameterizedTest
    @MethodSource("javas")
    void rulesBeatOptionsAnnotationsBeatRulesAndTheFirstMatchingRuleWins(Path java) throws Exception {
        Allowed where = twoPus();
        Path f = config("""
                # global option in the file, overridden by the agent argument below
                split-at = pu
                rule.first.match.thread = ruled-*
                rule.first.split-at = pu
                rule.first.color = 0
                rule.second.match.thread = ruled-?
                rule.second.split-at = pu
                rule.second.color = 1
                rule.ann.match.thread = ann-*
                rule.ann.color = 0
                """);
        Jvm.App r = app(java, "config=" + f + ",split-at=machine,verbose=true", List.of(), "rules");
        String out = r.result().toString();
        assertEquals(where.pus().get(0), r.cpus().get("ruled-1"), "rule beats the options, the first rule wins: " + out);
        assertEquals(where.pus().get(1), r.cpus().get("ann-1"), "annotation beats a matching rule: " + out);
        assertEquals(where.allowed(), r.cpus().get("plain-1"), "no rule, no annotation: the options: " + out);
        assertEquals("first", pool(r, "ruled").get("rule"));
        assertTrue(r.result().stderr().contains("qv: pool ruled: split-at=pu color=0 from rule first (" + f + ":3)\n"), r.result().stderr());
        assertTrue(r.result().stderr().contains("qv: pool ann: split-at=pu color=1 from @Placement on io.qv4j.testapps.AnnotatedApp.ruledButAnnotated()\n"), r.result().stderr());
    }

    @ParameterizedTest
    @MethodSource("javas")
    void aBadRuleNamesItsFileAndLineAndTheAgentStepsAside(Path java) throws Exception {
        Path f = config("rule.io.match.thread = io-*\n\nrule.io.color = purple\n");
        Jvm.App plain = app(java, null, List.of(), "rules");
        Jvm.App r = app(java, "config=" + f, List.of(), "rules");
        assertEquals(plain.result().stdout().replaceAll("tid=\\d+", ""), r.result().stdout().replaceAll("tid=\\d+", ""));
        assertEquals(0, r.result().exitCode());
        assertEquals("qv: config=" + f + ":3: rule io: bad value color=purple (allowed: auto, packed, spread, or a piece number 0, 1, ...); agent disabled",
                r.result().stderr().strip());
        Jvm.App strict = app(java, "config=" + f + ",strict=true", List.of(), "rules");
        assertEquals(2, strict.result().exitCode());
        assertEquals("", strict.result().stdout());
    }

    @ParameterizedTest
    @MethodSource("javas")
    void bindGivesEachCallerAPieceAndRestoresItsBindingAfterwards(Path java) throws Exception {
        Allowed where = twoPus();
        Jvm.App r = app(java, "", List.of(), "bind");
        String out = r.result().toString();
        assertEquals(Set.of(where.pus().get(0), where.pus().get(1)),
                new HashSet<>(List.of(r.cpus().get("during-a"), r.cpus().get("during-b"))), out);
        assertEquals(where.allowed(), r.cpus().get("after-a"), out);
        assertEquals(where.allowed(), r.cpus().get("after-b"), out);
    }

    @ParameterizedTest
    @MethodSource("javas")
    void weightedRulesShareTheJvmScopeInProportion(Path java) throws Exception {
        Path f = config("""
                rule.big.match.thread = big-*
                rule.big.split = 3
                rule.big.weight = 3
                rule.small.match.creator = io.qv4j.testapps.AnnotatedApp#main
                rule.small.match.thread = small-*
                rule.small.weight = 1
                """);
        Jvm.App r = app(java, "config=" + f + ",bind=dry-run,topology=package:1 core:16 pu:1", List.of(), "weights");
        assertEquals("0-11", pool(r, "big").get("universe"), r.report().toString());
        assertEquals("0-11", pool(r, "big").get("scope"), "12 cores for weight 3");
        assertEquals("12-15", pool(r, "small").get("universe"), "4 cores for weight 1");
        assertEquals("small", pool(r, "small").get("rule"));
    }

    /**
     * The hybrid laptop of the fixtures (hwloc XML: 6 P-cores = PUs 0-11, 8 E-cores = PUs 12-19)
     * under bind=dry-run: a pool of 4 on P-cores, a pool of 14 with slots 0-5 on P-cores and 6-13
     * on E-cores, {@code @Placement(kind = EFFICIENCY)} and a rule's {@code kind=efficiency} on E-cores.
     */
    @ParameterizedTest
    @MethodSource("javas")
    void cpuKindsFromTheOptionsAnAnnotationAndARule(Path java) throws Exception {
        String xml = Path.of("target/test-classes/fixtures/xml/20em64t-hybrid-1p6c2t+2ca4co1t.xml").toAbsolutePath().toString();
        Path f = config("""
                rule.bg.match.thread = bg-*
                rule.bg.kind = efficiency
                """);
        Jvm.App r = app(java, "config=" + f + ",bind=dry-run,topology=" + xml, List.of(), "kinds");
        io.qv4j.topology.CpuSet pCores = io.qv4j.topology.CpuSet.parse("0-11"), eCores = io.qv4j.topology.CpuSet.parse("12-19");
        for (int i = 1; i <= 4; i++) assertTrue(pCores.containsAll(cpuset(r, "p-" + i)), "p-" + i + " " + r.report());
        int seen = 0;
        for (Object t : (List<?>) pool(r, "big").get("threads")) {
            Map<?, ?> w = (Map<?, ?>) t;
            io.qv4j.topology.CpuSet c = io.qv4j.topology.CpuSet.parse((String) w.get("cpuset"));
            assertTrue((((Long) w.get("slot")) < 6 ? pCores : eCores).containsAll(c), w.toString());
            seen++;
        }
        assertEquals(14, seen, r.report().toString());
        for (int i = 1; i <= 4; i++) assertTrue(eCores.containsAll(cpuset(r, "e-" + i)), "e-" + i + " " + r.report());
        for (int i = 1; i <= 2; i++) assertTrue(eCores.containsAll(cpuset(r, "bg-" + i)), "bg-" + i + " " + r.report());
        assertEquals("split-at=core color=spread kind=efficiency", pool(r, "e").get("policy"));
        assertEquals("bg", pool(r, "bg").get("rule"));
    }

    /** A worker's cpus in the report. */
    static io.qv4j.topology.CpuSet cpuset(Jvm.App run, String thread) {
        return io.qv4j.topology.CpuSet.parse((String) AgentPlacementIT.reportThread(run, thread).get("cpuset"));
    }

    @ParameterizedTest
    @MethodSource("javas")
    void qvExecutorsWithAndWithoutTheAgent(Path java) throws Exception {
        Allowed where = twoPus();
        Set<String> twoPieces = Set.of(where.pus().get(0), where.pus().get(1));
        Jvm.App agent = app(java, "", List.of(), "exec");
        assertEquals(twoPieces, new HashSet<>(List.of(agent.cpus().get("qx-thread-1"), agent.cpus().get("qx-thread-2"))), agent.result().toString());
        assertEquals("placed by QvExecutors", pool(agent, "qx").get("reason"));
        Jvm.App onPath = app(java, null, List.of(Jvm.agentJar().toString()), "exec");
        assertEquals(twoPieces, new HashSet<>(List.of(onPath.cpus().get("qx-thread-1"), onPath.cpus().get("qx-thread-2"))), onPath.result().toString());
        Jvm.App none = app(java, null, List.of(), "exec");
        assertTrue(none.result().stdout().startsWith("platform false"), none.result().toString());
        assertEquals(where.allowed(), none.cpus().get("qx-thread-1"));
        assertEquals(where.allowed(), none.cpus().get("qx-thread-2"));
        assertTrue(none.result().stderr().contains("QvExecutors threads run unpinned"), none.result().stderr());
    }
}
