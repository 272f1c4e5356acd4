package io.qv4j.agent.it;

import io.qv4j.api.Placement;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Virtual threads (JDK 25 only): 10,000 of them compute right results, and {@code Scope.bind()}
 * made on a virtual thread leaves no carrier bound (kernel view of every carrier); it says so once.
 */
class VirtualThreadsIT {

    @Test
    void bindingOnAVirtualThreadNeverPinsACarrier() throws Exception {
        Path java = Jvm.atLeast(21);
        assumeTrue(java != null, "needs a JDK with virtual threads (21 or later)");
        String api = Path.of(Placement.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        Jvm.App r = Jvm.app(java, List.of(), List.of(), ThreadGroupsIT.ownClaims(), List.of("target/test-classes", api),
                "io.qv4j.testapps.VirtualApp", Set.of("carrier"), "10000");
        String out = r.result().toString();
        assertEquals(0, r.result().exitCode(), out);
        assertTrue(r.result().stdout().contains("ok 10000\n"), out);
        assertFalse(r.cpus().isEmpty(), "carriers seen: " + out);
        String allowed = Allowed.unrestricted().allowed();
        for (Map.Entry<String, String> e : r.cpus().entrySet()) assertEquals(allowed, e.getValue(), "carrier " + e.getKey() + " left unbound: " + out);
        String err = r.result().stderr();
        int first = err.indexOf("Scope.bind() on a virtual thread: not bound");
        assertTrue(first >= 0, err);
        assertEquals(-1, err.indexOf("Scope.bind() on a virtual thread", first + 1), "said once: " + err);
    }

    @Test
    void theCarriersOptionBindsEveryCarrierToTheChosenScope() throws Exception {
        Path java = Jvm.atLeast(21);
        assumeTrue(java != null, "needs a JDK with virtual threads (21 or later)");
        Allowed where = Allowed.unrestricted();
        assumeTrue(where.cores().size() >= 2, "needs two allowed cores, has " + where.allowed());
        String api = Path.of(Placement.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        Jvm.App r = Jvm.app(java, List.of(), List.of(), "carriers=core:1," + ThreadGroupsIT.ownClaims(), List.of("target/test-classes", api),
                "io.qv4j.testapps.VirtualApp", Set.of("carrier"), "10000");
        String out = r.result().toString();
        assertEquals(0, r.result().exitCode(), out);
        assertTrue(r.result().stdout().contains("ok 10000\n"), out);
        assertFalse(r.cpus().isEmpty(), "carriers seen: " + out);
        for (Map.Entry<String, String> e : r.cpus().entrySet()) assertEquals(where.cores().get(1), e.getValue(), "carrier " + e.getKey() + ": " + out);
    }
}
