package io.qv4j.agent.it;

import jakarta.servlet.Servlet;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tomcat's request workers recognized with no rule and no code (JDK 17 and 25): embedded Tomcat
 * serving 1,000 HTTP requests, forked with Tomcat on its class path. Every answer is right, and
 * every request worker runs where the report says it was put (kernel view): its slot's piece when
 * the pool's core size fits the allowed PUs without oversubscribing, else the pool scope.
 */
class TomcatIT {

    static List<Path> javas() throws Exception {
        return Jvm.javas();
    }

    @ParameterizedTest
    @MethodSource("javas")
    @SuppressWarnings("unchecked")
    void thousandRequestsRightAndEveryWorkerWhereThePolicyPutsIt(Path java) throws Exception {
        List<String> cp = new ArrayList<>(List.of("target/test-classes"));
        for (Class<?> c : List.of(Tomcat.class, Servlet.class, jakarta.annotation.Resource.class)) cp.add(NettyIT.jar(c));
        Jvm.App r = Jvm.app(java, List.of(), List.of(), ThreadGroupsIT.ownClaims(), cp, "io.qv4j.testapps.TomcatApp", Set.of("thread"), "1000");
        String out = r.result().toString();
        assertEquals(0, r.result().exitCode(), out);
        assertTrue(r.result().stdout().contains("ok 1000\n"), "all 1000 answers right: " + out);
        assertFalse(r.cpus().isEmpty(), out);
        Map<String, Object> pool = null;
        for (Object p : (List<Object>) r.report().get("pools")) {
            Map<String, Object> m = (Map<String, Object>) p;
            if ("org.apache.tomcat.util.threads.ThreadPoolExecutor".equals(m.get("class"))) pool = m;
        }
        assertNotNull(pool, "Tomcat's pool in the report: " + r.report());
        assertEquals(true, pool.get("pinned"), out);
        Map<String, String> placed = new HashMap<>();
        for (Object t : (List<Object>) pool.get("threads")) {
            Map<String, Object> w = (Map<String, Object>) t;
            placed.put((String) w.get("name"), (String) w.get("cpuset"));
        }
        String allowed = Allowed.unrestricted().allowed();
        for (Map.Entry<String, String> e : r.cpus().entrySet()) {
            assertTrue(placed.containsKey(e.getKey()), "worker " + e.getKey() + " placed: " + pool);
            assertEquals(placed.get(e.getKey()), e.getValue(), "kernel view of " + e.getKey() + ": " + out);
            assertTrue(io.qv4j.topology.CpuSet.parse(allowed).containsAll(io.qv4j.topology.CpuSet.parse(e.getValue())), out);
        }
    }
}
