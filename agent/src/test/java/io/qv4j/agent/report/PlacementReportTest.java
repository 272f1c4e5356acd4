package io.qv4j.agent.report;

import io.qv4j.agent.bind.Binder;
import io.qv4j.agent.config.Options;
import io.qv4j.agent.config.OptionsParser;
import io.qv4j.agent.config.Rules;
import io.qv4j.agent.place.Env;
import io.qv4j.agent.place.Placer;
import io.qv4j.topology.SyntheticSpec;
import io.qv4j.topology.Topology;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

class PlacementReportTest {

    @Test
    void aReportMadeWhileAPoolsTerminatedHookMakesAPoolDoesNotDeadlock() throws Exception {
        // ThreadPoolExecutor calls terminated() holding its own lock, which its completed-task count
        // takes too: the report must not ask for that count while it holds the registry's lock,
        // which the pool made in terminated() waits for
        Options o = OptionsParser.parse("bind=dry-run", new Properties(), Map.of());
        Topology t = SyntheticSpec.parse("package:1 core:2 pu:1");
        Placer placer = new Placer(o, Rules.none(), 1000);
        placer.ready(new Env(t, t.allowed(), Binder.DRY_RUN, null, null, false));
        CountDownLatch inTerminated = new CountDownLatch(1);
        CountDownLatch made = new CountDownLatch(1);
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>()) {
            @Override
            protected void terminated() {
                inTerminated.countDown();
                try {
                    Thread.sleep(200); // the report is under way, and asks for this pool's count
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                placer.poolCreated(new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>()));
                made.countDown();
            }
        };
        placer.poolCreated(pool);
        Thread ender = new Thread(pool::shutdown, "ender");
        ender.setDaemon(true);
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            ender.start();
            inTerminated.await();
            Map<String, Object> report = PlacementReport.snapshot(placer, null, null);
            made.await();
            Map<?, ?> first = (Map<?, ?>) ((List<?>) report.get("pools")).get(0);
            assertEquals(0L, first.get("completedTasks"), "its count, read once terminated() let go of the pool's lock: " + first);
        });
    }
}
