package io.qv4j.agent.it;

import io.qv4j.agent.report.JsonReader;
import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rebalance re-plans each pool by its own policy: pool {@code b} is placed by a rule with
 * {@code split-at=pu,color=packed}; after the busy pool {@code b} takes most of a 16-PU dry-run
 * machine from the idle pool {@code a}, b's slots are still packed (consecutive PUs from the start
 * of its new piece), where the options' policy (cores, spread) would have spread them out.
 */
class RebalancePolicyIT {

    @Test
    @SuppressWarnings("unchecked")
    void aPoolPlacedByARuleKeepsItsPackedPlacementAfterARebalance() throws Exception {
        Path config = Files.createTempFile("qv-rules", ".properties");
        Files.writeString(config, "rule.b.match.thread=b-*\nrule.b.split-at=pu\nrule.b.color=packed\n");
        Path report = Files.createTempFile("qv-rebalance", ".json");
        Files.delete(report);
        try {
            Jvm.Result r = Jvm.run(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-javaagent:" + Jvm.agentJar() + "=bind=dry-run,topology=package:1 core:8 pu:2,rebalance=200ms,split-at=core,color=spread,config="
                            + config + ",report=" + report,
                    "-cp", "target/test-classes", "io.qv4j.testapps.PoolApp", "rebalance", "4", "4", "b", "2000"));
            assertEquals(0, r.exitCode(), r.toString());
            Map<String, Object> rep = (Map<String, Object>) JsonReader.parse(Files.readString(report));
            Map<String, Object> b = null;
            for (Object p : (List<Object>) rep.get("pools")) if ("b".equals(((Map<String, Object>) p).get("name"))) b = (Map<String, Object>) p;
            assertTrue(b != null && "b".equals(b.get("rule")), String.valueOf(b));
            assertFalse(((List<Object>) ((Map<String, Object>) rep.get("rebalance")).get("history")).isEmpty(), "no rebalance happened: " + r.stderr());
            CpuSet scope = CpuSet.parse((String) b.get("scope"));
            assertTrue(scope.cardinality() > 4, "b grew: " + scope);
            List<Object> slots = (List<Object>) b.get("slots");
            for (int i = 0; i < slots.size(); i++) {
                CpuSet slot = CpuSet.parse((String) ((Map<String, Object>) slots.get(i)).get("cpuset"));
                assertEquals(CpuSet.of(scope.toArray()[i]), slot, "slot " + i + " of " + b);
            }
        } finally {
            Files.deleteIfExists(config);
            Files.deleteIfExists(report);
        }
    }
}
