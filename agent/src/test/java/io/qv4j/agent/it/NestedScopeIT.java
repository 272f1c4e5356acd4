package io.qv4j.agent.it;

import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Nested scopes: a pool made inside a {@code @Bind} call splits the caller's piece; the same pool
 * made from {@code main} splits the JVM's scope.
 */
class NestedScopeIT {

    static Jvm.App app(String agentArgs) throws Exception {
        return Jvm.app(Path.of(System.getProperty("java.home"), "bin", "java"), List.of(), List.of(), agentArgs,
                List.of("target/test-classes"), "io.qv4j.testapps.NestedApp", Set.of("thread"));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> pool(Jvm.App a, String name) {
        for (Object p : (List<Object>) a.report().get("pools")) if (name.equals(((Map<String, Object>) p).get("name"))) return (Map<String, Object>) p;
        throw new AssertionError("no pool " + name + ": " + a.report());
    }

    @SuppressWarnings("unchecked")
    static CpuSet slotsUnion(Map<String, Object> pool) {
        CpuSet u = CpuSet.empty();
        for (Object s : (List<Object>) pool.get("slots")) {
            Object c = ((Map<String, Object>) s).get("cpuset");
            if (c != null) u = u.or(CpuSet.parse((String) c));
        }
        return u;
    }

    @Test
    void aPoolMadeInsideABindCallSplitsTheCallersPieceOfADryRunMachine() throws Exception {
        Jvm.App a = app("bind=dry-run,topology=package:2 core:4 pu:2,split-at=pu");
        assertEquals(0, a.result().exitCode(), a.result().toString());
        Map<String, Object> inner = pool(a, "inner");
        assertEquals("0-1", inner.get("parent"), inner.toString());
        assertEquals(CpuSet.parse("0-1"), slotsUnion(inner));
        Map<String, Object> outer = pool(a, "outer");
        assertNull(outer.get("parent"));
        assertEquals(CpuSet.parse("0,8"), slotsUnion(outer), "split-at=pu spread over the 16 PUs: " + outer);
    }

    @Test
    void onThisMachineTheInnerPoolsWorkersStayInsideTheCallersCore() throws Exception {
        Jvm.App a = app("");
        assertEquals(0, a.result().exitCode(), a.result().toString());
        CpuSet piece = CpuSet.parse((String) pool(a, "inner").get("parent"));
        for (String t : List.of("inner-1", "inner-2")) {
            assertTrue(piece.containsAll(CpuSet.parse(a.cpus().get(t))), t + " " + a.cpus() + " outside " + piece);
        }
    }
}
