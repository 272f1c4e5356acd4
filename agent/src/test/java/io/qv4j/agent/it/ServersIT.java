package io.qv4j.agent.it;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The event loops of the common servers placed with no rule and no code, found by what they are
 * (DESIGN.md §6.2): Vert.x 5, Reactor Netty 1.3, gRPC on its shaded Netty and Undertow 2.3 (XNIO),
 * each serving {@link #REQUESTS} requests in a JVM forked with the real framework on its class path
 * (JDK 17 and 25). With as many loops as allowed PUs (at most 4) under {@code split-at=pu}, every
 * loop runs on one PU of its own (kernel view), the answers equal those of a run without the agent,
 * {@code verbose} names each group, and no housekeeping thread is pinned.
 */
class ServersIT {

    static final int REQUESTS = 20;

    static Stream<Arguments> runs() throws Exception {
        List<Arguments> out = new ArrayList<>();
        for (Path java : Jvm.javas()) {
            for (String[] f : new String[][] {{"vertx", "vert.x-eventloop-thread", "Vert.x event loops"},
                                              {"reactor", "reactor-http", "Reactor Netty event loops"},
                                              {"grpc", "nioEventLoopGroup", "gRPC event loops"},
                                              {"undertow", "XNIO-1_I/O", "XNIO I/O threads"}}) {
                out.add(Arguments.of(f[0], java, f[1], f[2]));
            }
        }
        return out.stream();
    }

    /** The test's own class path but the agent's classes: the frameworks as the build resolved them. */
    static List<String> classpath() {
        List<String> cp = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!e.endsWith("target" + File.separator + "classes")) cp.add(e);
        }
        return cp;
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("runs")
    void everyEventLoopOnAPuOfItsOwnAndTheAnswersUnchanged(String framework, Path java, String loopName, String what) throws Exception {
        Allowed where = Allowed.unrestricted();
        int loops = Math.min(4, where.pus().size());
        Jvm.App plain = Jvm.app(java, List.of(), List.of(), null, classpath(), "io.qv4j.testapps.ServersApp", Set.of("thread"), framework, Integer.toString(loops));
        Jvm.App r = Jvm.app(java, List.of(), List.of(), "split-at=pu,verbose=true," + ThreadGroupsIT.ownClaims(), classpath(),
                "io.qv4j.testapps.ServersApp", Set.of("thread"), framework, Integer.toString(loops));
        String out = r.result().toString();
        assertEquals(0, r.result().exitCode(), out);
        assertEquals(answers(plain), answers(r), out);
        assertEquals(REQUESTS, answers(r).size(), out);

        Set<String> pus = new HashSet<>();
        for (Map.Entry<String, String> e : r.cpus().entrySet()) {
            assertTrue(e.getKey().startsWith(loopName), e.getKey() + " is not one of the loops: " + out);
            assertTrue(where.pus().contains(e.getValue()), e.getKey() + " on " + e.getValue() + ", not one allowed PU: " + out);
            pus.add(e.getValue());
        }
        assertEquals(loops, r.cpus().size(), out);
        assertEquals(loops, pus.size(), "each loop on a PU of its own: " + r.cpus());
        assertTrue(r.result().stderr().contains(what + " of " + loops + " threads"), out);

        int housekeeping = 0;
        for (Object p : (List<?>) r.report().get("pools")) {
            Map<?, ?> pool = (Map<?, ?>) p;
            String name = String.valueOf(pool.get("name"));
            if (name.contains("evictor") || name.contains("destroyer") || name.contains("checker")) {
                assertFalse((Boolean) pool.get("pinned"), "housekeeping " + name + " pinned: " + pool);
                housekeeping++;
            }
        }
        // Reactor Netty starts boundedElastic's evictor, gRPC its shared-resource destroyer: the check above saw them
        if (framework.equals("reactor") || framework.equals("grpc")) assertTrue(housekeeping > 0, "no housekeeping pool in " + r.report());
    }

    /**
     * Reactor's {@code Schedulers.newParallel("parallel", 4)} (four single-thread scheduled pools)
     * planned for a two-package machine ({@code bind=dry-run}): one group of four spread over both
     * packages, not the first four free cores of the first.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("javas")
    void reactorsParallelSchedulerSpreadsAsOneGroup(Path java) throws Exception {
        Jvm.App r = Jvm.app(java, List.of(), List.of(), "bind=dry-run,topology=package:2 core:4 pu:2," + ThreadGroupsIT.ownClaims(), classpath(),
                "io.qv4j.testapps.ServersApp", Set.of("thread"), "parallel", "4");
        assertEquals(0, r.result().exitCode(), r.result().toString());
        Set<String> cpus = new HashSet<>();
        for (int k = 1; k <= 4; k++) cpus.add(String.valueOf(AgentPlacementIT.reportThread(r, "parallel-" + k).get("cpuset")));
        assertEquals(Set.of("0-1", "4-5", "8-9", "12-13"), cpus, r.report().toString());
    }

    static List<Path> javas() throws Exception {
        return Jvm.javas();
    }

    private static List<String> answers(Jvm.App r) {
        List<String> out = new ArrayList<>();
        for (String line : r.result().stdout().split("\n")) if (line.startsWith("answer ")) out.add(line);
        return out;
    }
}
