package io.qv4j.agent.it;

import io.qv4j.topology.CpuSet;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Jetty's {@code QueuedThreadPool} recognized with no rule and no code: embedded Jetty serving
 * 1,000 HTTP requests, forked with Jetty on its class path. Every answer is right and the same
 * as without the agent, and every thread that served runs where the report says it was put
 * (kernel view). T is the pool's {@code maxThreads}: Jetty's default pool (200) shares the pool
 * scope wherever its slots would oversubscribe the PUs; a pool of 3 under {@code split-at=pu} gets
 * one PU per slot where the allowed set has a PU for each, none where every PU would hold two.
 */
class JettyIT {

    static final String QTP = "org.eclipse.jetty.util.thread.QueuedThreadPool";
    static final int SMALL = 3;

    static List<Path> javas() throws Exception {
        return Jvm.javas();
    }

    static List<Allowed> sets() {
        return Allowed.sets();
    }

    static Jvm.App app(Path java, List<String> prefix, String agentArgs, int maxThreads) throws Exception {
        List<String> cp = new ArrayList<>(List.of("target/test-classes"));
        for (Class<?> c : List.of(Server.class, QueuedThreadPool.class, Content.class, HttpHeader.class, org.slf4j.LoggerFactory.class)) {
            cp.add(NettyIT.jar(c));
        }
        String args = agentArgs == null ? null : agentArgs.isEmpty() ? ThreadGroupsIT.ownClaims() : agentArgs + "," + ThreadGroupsIT.ownClaims();
        return Jvm.app(java, prefix, List.of(), args, cp, "io.qv4j.testapps.JettyApp", Set.of("thread"), "1000", String.valueOf(maxThreads));
    }

    /** The lines that must not change with the agent: the count of right answers and the digest of all of them. */
    static String answers(Jvm.App r) {
        StringBuilder b = new StringBuilder();
        for (String l : r.result().stdout().split("\n")) if (l.startsWith("ok ") || l.startsWith("answers ")) b.append(l).append('\n');
        return b.toString();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> pool(Jvm.App r) {
        for (Object p : (List<Object>) r.report().get("pools")) {
            Map<String, Object> m = (Map<String, Object>) p;
            if (QTP.equals(m.get("class"))) return m;
        }
        throw new AssertionError("Jetty's pool in the report: " + r.report());
    }

    /** Each of the pool's threads in the report: its cpuset. */
    @SuppressWarnings("unchecked")
    static Map<String, String> placed(Map<String, Object> pool) {
        Map<String, String> out = new HashMap<>();
        for (Object t : (List<Object>) pool.get("threads")) {
            Map<String, Object> w = (Map<String, Object>) t;
            out.put((String) w.get("name"), (String) w.get("cpuset"));
        }
        return out;
    }

    /** The run succeeded, all 1,000 answers right and as without the agent, each thread that served where the report put it. */
    static Map<String, String> checked(Jvm.App r, Jvm.App plain, Allowed where, int tasks) {
        String out = r.result().toString();
        assertEquals(0, r.result().exitCode(), out);
        assertTrue(r.result().stdout().contains("ok 1000\n"), "all 1000 answers right: " + out);
        assertEquals(answers(plain), answers(r), "the same answers with and without the agent");
        assertFalse(r.cpus().isEmpty(), out);
        Map<String, Object> pool = pool(r);
        assertEquals(true, pool.get("pinned"), out);
        assertEquals(tasks, ((Number) pool.get("tasks")).intValue(), "T = maxThreads: " + out);
        Map<String, String> placed = placed(pool);
        CpuSet allowed = CpuSet.parse(where.allowed());
        for (Map.Entry<String, String> e : r.cpus().entrySet()) {
            assertNotNull(placed.get(e.getKey()), "thread " + e.getKey() + " placed: " + pool);
            assertEquals(placed.get(e.getKey()), e.getValue(), "kernel view of " + e.getKey() + ": " + out);
            assertTrue(allowed.containsAll(CpuSet.parse(e.getValue())), out);
        }
        return placed;
    }

    @ParameterizedTest
    @MethodSource("javas")
    void thousandRequestsOnJettysDefaultPoolRightTheSameAndEveryThreadWhereThePolicyPutsIt(Path java) throws Exception {
        Allowed where = Allowed.unrestricted();
        Jvm.App plain = app(java, List.of(), null, 0);
        Jvm.App r = app(java, List.of(), "", 0);
        checked(r, plain, where, 200);
        if (200 >= 2 * where.pus().size()) {
            // at least two of the 200 slots on every PU: pinning any would oversubscribe it
            for (Map.Entry<String, String> e : r.cpus().entrySet()) {
                assertEquals(where.allowed(), e.getValue(), "thread " + e.getKey() + " on the pool scope: " + r.result());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("sets")
    void aPoolOfThreeGetsOnePuPerSlotWhereThereIsOneForEachElseThePoolScope(Allowed where) throws Exception {
        Path java = Jvm.javas().get(0);
        Jvm.App plain = app(java, where.prefix(), null, SMALL);
        Jvm.App r = app(java, where.prefix(), "split-at=pu", SMALL);
        Map<String, String> placed = checked(r, plain, where, SMALL);
        assertEquals(SMALL, placed.size(), "the pool's three threads started and placed: " + r.result());
        int pus = where.pus().size();
        if (pus == 1) {
            for (String c : placed.values()) assertEquals(where.allowed(), c, "all on the one allowed PU: " + placed);
            return;
        }
        // the three slots spread over the PUs, one or two each: a PU with two of them pins neither
        int pinnedSlots = pus >= SMALL ? SMALL : SMALL >= 2 * pus ? 0 : 2 * pus - SMALL;
        Set<String> ownPus = new HashSet<>();
        for (Map.Entry<String, String> e : placed.entrySet()) {
            if (e.getValue().equals(where.allowed())) continue;
            assertEquals(1, CpuSet.parse(e.getValue()).cardinality(), "thread " + e.getKey() + " on one PU or the pool scope: " + placed);
            assertTrue(ownPus.add(e.getValue()), "no two threads pinned to PU " + e.getValue() + ": " + placed);
        }
        assertEquals(pinnedSlots, ownPus.size(), "threads with a PU of their own under " + where + ": " + placed);
    }
}
