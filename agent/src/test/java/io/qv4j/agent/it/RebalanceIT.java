package io.qv4j.agent.it;

import io.qv4j.agent.report.JsonReader;
import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code rebalance=DURATION} re-splits the JVM scope among pinned pools in
 * proportion to their CPU time, with hysteresis, and moved workers rebind at their next task.
 * Forked JVMs (the running JDK only, to keep the suite short) run {@code PoolApp rebalance}: two
 * fixed pools {@code a} (made first) and {@code b}, the busy ones running 20 ms spinning tasks.
 */
class RebalanceIT {

    record Run(Jvm.Result result, Map<String, List<String>> history, Map<String, Object> report) {
    }

    static Run app(String agentArgs, String... appArgs) throws Exception {
        Path report = Files.createTempFile("qv-rebalance", ".json");
        Files.delete(report);
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-javaagent:" + Jvm.agentJar() + "=neighbours=off," + agentArgs + ",report=" + report, // the rebalancer's moves alone
                "-cp", "target/test-classes", "io.qv4j.testapps.PoolApp", "rebalance"));
        cmd.addAll(List.of(appArgs));
        Jvm.Result r = Jvm.run(cmd);
        assertEquals(0, r.exitCode(), r.toString());
        Map<String, List<String>> history = new LinkedHashMap<>();
        for (String line : r.stdout().split("\n")) {
            String[] w = line.split(" ");
            if (w.length == 3 && w[0].equals("history")) history.put(w[1], List.of(w[2].split(">")));
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> rep = Files.exists(report) ? (Map<String, Object>) JsonReader.parse(Files.readString(report)) : Map.of();
        Files.deleteIfExists(report);
        assertFalse(rep.isEmpty(), "no report: " + r);
        return new Run(r, history, rep);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> pool(Run run, String name) {
        for (Object p : (List<Object>) run.report().get("pools")) {
            if (name.equals(((Map<String, Object>) p).get("name"))) return (Map<String, Object>) p;
        }
        throw new AssertionError("pool " + name + " not in the report: " + run.report());
    }

    static CpuSet scope(Run run, String pool) {
        return CpuSet.parse((String) pool(run, pool).get("scope"));
    }

    @SuppressWarnings("unchecked")
    static List<Object> history(Run run) {
        return (List<Object>) ((Map<String, Object>) run.report().get("rebalance")).get("history");
    }

    private static final String SYNTHETIC = "bind=dry-run,topology=package:1 core:16 pu:1,rebalance=200ms,verbose=true";

    /**
     * (a) Dry run on 16 cores: pools of 4 and 4 start on 4 cores each; b spins, a idles. After a few
     * 200 ms periods b's scope is at least 12 of the 16 cores (the split gives a its minimum, one).
     */
    @Test
    void busyPoolGetsMostOfTheCores() throws Exception {
        Run r = app(SYNTHETIC, "4", "4", "b", "2000");
        CpuSet a = scope(r, "a");
        CpuSet b = scope(r, "b");
        assertTrue(b.cardinality() >= 12, "busy pool holds " + b + ": " + r.report() + "\n" + r.result().stderr());
        assertFalse(a.intersects(b), a + " / " + b);
        assertFalse(history(r).isEmpty(), r.report().toString());
        assertTrue(r.result().stderr().contains("qv: rebalance: a load"), r.result().stderr());
    }

    /**
     * (b) Equal loads: both pools spin; the shares (4 cores each) already match, so nothing changes.
     * The hysteresis band is wide (0.4): on a busy host the loads measured in one period are noisy
     * (a pool's threads may hardly run), and that noise is not what this test is about.
     */
    @Test
    void equalLoadsKeepTheSplit() throws Exception {
        Run r = app(SYNTHETIC + ",rebalance-threshold=0.4", "4", "4", "ab", "2000");
        assertEquals(List.of(), history(r), r.result().stderr());
        assertEquals(4, scope(r, "a").cardinality());
        assertEquals(4, scope(r, "b").cardinality());
        assertFalse(r.result().stderr().contains("rebalance:"), r.result().stderr());
    }

    /**
     * (c) Real binding, on a machine that allows exactly two cores, c0 and c1 (on a 2-PU machine,
     * PUs 0 and 1). Pool a (1 worker, idle) is made first and takes c0; pool b (2 workers, busy)
     * finds only c1 free for 2 slots, so it is planned on both cores and shares c0 with a: one b
     * worker is on c0, the other on c1. Its load share is about 1 against a core share of 2/3: the
     * rebalancer gives a one core (its minimum) and b the other, so the b worker on c0 is rebound
     * to c1 at its next task. The kernel's view, read by the workers themselves, shows it: a b
     * worker's Cpus_allowed_list goes c0 → c1, every b worker ends on c1, a stays on c0. The app
     * stops as soon as that is seen (at most 6 s).
     */
    @Test
    void busyWorkersAreReboundInTheKernel() throws Exception {
        Allowed where = Allowed.unrestricted();
        assumeTrue(where.cores().size() == 2, "the scenario is written for two allowed cores, not " + where.cores());
        String c0 = where.cores().get(0);
        String c1 = where.cores().get(1);
        Run r = app("split-at=core,rebalance=200ms,verbose=true", "1", "2", "b", "6000", "until-moved");
        String why = r.history() + "\n" + r.result().stderr();
        assertEquals(List.of(c0), r.history().get("a-1"), why);
        List<String> b1 = r.history().get("b-1");
        List<String> b2 = r.history().get("b-2");
        assertEquals(c1, b1.get(b1.size() - 1), why);
        assertEquals(c1, b2.get(b2.size() - 1), why);
        assertTrue(b1.equals(List.of(c0, c1)) || b2.equals(List.of(c0, c1)), why);
        assertEquals(c1, pool(r, "b").get("scope"), why);
        assertEquals(c0, pool(r, "a").get("scope"), why);
        assertTrue(r.result().stderr().contains("qv: rebalance: thread \"b-"), why);
    }
}
