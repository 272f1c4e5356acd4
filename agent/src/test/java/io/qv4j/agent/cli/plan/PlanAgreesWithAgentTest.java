package io.qv4j.agent.cli.plan;

import io.qv4j.agent.bind.Binders;
import io.qv4j.agent.cli.MainTest;
import io.qv4j.agent.config.Options;
import io.qv4j.agent.config.OptionsParser;
import io.qv4j.agent.config.Rules;
import io.qv4j.agent.place.Env;
import io.qv4j.agent.place.Placer;
import io.qv4j.agent.platform.TopologyInput;
import io.qv4j.agent.report.JsonReader;
import io.qv4j.agent.report.PlacementReport;
import io.qv4j.testapps.AppPools;
import io.qv4j.topology.HwType;
import io.qv4j.topology.Topology;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ThreadPoolExecutor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code plan} previews exactly what the agent does: for random (machine, policy, pool size)
 * triples, the slots of the agent's dry-run report equal the tasks of {@code plan --options}
 * (tasks {@code plan} marks shared have no slot piece: they would oversubscribe theirs), and when
 * {@code plan} refuses a policy for a machine the agent leaves the pool unpinned.
 */
class PlanAgreesWithAgentTest {

    static final String[] MACHINES = {
        "package:2 core:4 pu:2", "package:2 numa:2 core:3 pu:2 gpu:1", "package:1 l3:2 core:4 nic:2", "core:5 pu:3",
        "package:3 die:2 core:2 pu:2", "numa:4 l2:2 core:2 pu:2 gpu:2", "package:2 numa:2 l3:2 l2:2 l1:1 core:2 pu:2 nic:1"};

    @Test
    void fiftyRandomTriplesAgree() throws Exception {
        Random rnd = new Random(12);
        int agreedOnPlacement = 0;
        for (int i = 0; i < 50; i++) {
            String machine = MACHINES[rnd.nextInt(MACHINES.length)];
            String how = rnd.nextInt(4) == 0 ? "split=" + (1 + rnd.nextInt(8))
                    : "split-at=" + HwType.values()[rnd.nextInt(HwType.values().length)].shortName();
            String[] colors = {"auto", "packed", "spread", "0", "1", "3"};
            String policy = how + ",color=" + colors[rnd.nextInt(colors.length)];
            int tasks = 1 + rnd.nextInt(12);
            String triple = machine + " / " + policy + " / " + tasks;

            MainTest.Run plan = MainTest.run("plan", "--input", machine, "--options", policy, "--tasks", String.valueOf(tasks), "--format", "json");
            Map<?, ?> pool = agentPool(machine, policy, tasks);
            if (plan.code() != 0) {
                assertFalse((Boolean) pool.get("pinned"), triple + ": plan refused (" + plan.err().strip() + ") but the agent pinned: " + pool);
                assertTrue(String.valueOf(pool.get("reason")).startsWith("placement failed"), triple + ": " + pool);
                continue;
            }
            // a task that shares the pool scope (its piece would be oversubscribed) has no slot piece of its own
            List<String> planned = new ArrayList<>();
            for (Object t : (List<?>) ((Map<?, ?>) JsonReader.parse(plan.out())).get("tasks")) {
                Map<?, ?> task = (Map<?, ?>) t;
                planned.add(Boolean.TRUE.equals(task.get("shared")) ? "" : (String) task.get("cpus"));
            }
            List<String> placed = new ArrayList<>();
            for (Object s : (List<?>) pool.get("slots")) {
                Object c = ((Map<?, ?>) s).get("cpuset");
                placed.add(c == null ? "" : (String) c);
            }
            assertEquals(planned, placed, triple);
            agreedOnPlacement++;
        }
        assertTrue(agreedOnPlacement >= 25, "most triples place: " + agreedOnPlacement);
    }

    /** The agent's dry run of one pool of {@code tasks} workers, as its report shows it. */
    private static Map<?, ?> agentPool(String machine, String policy, int tasks) throws Exception {
        Options o = OptionsParser.parse(policy + ",bind=dry-run,topology=" + machine, new Properties(), Map.of());
        Topology t = TopologyInput.input(machine);
        Placer p = new Placer(o, Rules.none(), 1000);
        p.ready(new Env(t, t.allowed(), Binders.choose(o.bind()), null, null, false));
        ThreadPoolExecutor pool = AppPools.fixed(tasks, p::poolCreated);
        p.workerStart(pool, new Thread(() -> { }, "app-1"));
        Map<?, ?> report = (Map<?, ?>) JsonReader.parse(io.qv4j.agent.report.Json.write(PlacementReport.snapshot(p, null, null)));
        return (Map<?, ?>) ((List<?>) report.get("pools")).get(0);
    }
}
