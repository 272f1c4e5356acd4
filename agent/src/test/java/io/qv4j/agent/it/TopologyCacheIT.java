package io.qv4j.agent.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The kept topology in real JVMs: the first start reads the machine and keeps it, the next takes
 * it from the cache and places its workers the same way; another allowed set, or a damaged entry,
 * reads the machine again.
 */
class TopologyCacheIT {

    private static Jvm.App run(Path java, Path cache, List<String> prefix) throws Exception {
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of("env", "XDG_CACHE_HOME=" + cache));
        Jvm.App app = Jvm.app(java, command, List.of(), "split-at=core,color=spread,verbose=true",
                List.of("target/test-classes"), "io.qv4j.testapps.PoolApp", Set.of("thread"), "fixed", "2");
        assertEquals(0, app.result().exitCode(), app.result().toString());
        return app;
    }

    private static boolean fromCache(Jvm.App run) {
        String err = run.result().stderr();
        assertTrue(err.contains("qv: ready "), err);
        return err.contains(" us from the cache, node ");
    }

    private static List<Path> entries(Path cache) throws Exception {
        try (Stream<Path> s = Files.list(cache.resolve("qv4j"))) {
            return s.filter(p -> p.toString().endsWith(".qvtopo")).sorted().toList();
        }
    }

    @Test
    void theSecondStartTakesTheMachineFromTheCacheAndPlacesTheSame(@TempDir Path cache) throws Exception {
        Path java = Jvm.javas().get(0);
        Jvm.App first = run(java, cache, List.of());
        assertFalse(fromCache(first), first.result().stderr());
        assertEquals(1, entries(cache).size());
        Jvm.App second = run(java, cache, List.of());
        assertTrue(fromCache(second), second.result().stderr());
        assertEquals(2, second.cpus().size(), second.result().toString());
        assertEquals(Set.copyOf(first.cpus().values()), Set.copyOf(second.cpus().values()), first.cpus() + " vs " + second.cpus());
    }

    @Test
    void anotherAllowedSetReadsTheMachineAgainAndStaysInside(@TempDir Path cache) throws Exception {
        List<Allowed> sets = Allowed.sets();
        assumeTrue(sets.size() > 1, "two PUs and taskset");
        Path java = Jvm.javas().get(0);
        run(java, cache, List.of());
        Allowed one = sets.get(sets.size() - 1);
        Jvm.App narrowed = run(java, cache, one.prefix());
        assertFalse(fromCache(narrowed), narrowed.result().stderr());
        assertEquals(2, entries(cache).size(), "one entry per allowed set");
        for (String mask : narrowed.cpus().values()) assertEquals(one.allowed(), mask, narrowed.result().toString());
        assertTrue(fromCache(run(java, cache, one.prefix())));
    }

    @Test
    void aDamagedEntryIsReadAgainAndWrittenAsBefore(@TempDir Path cache) throws Exception {
        Path java = Jvm.javas().get(0);
        run(java, cache, List.of());
        Path entry = entries(cache).get(0);
        byte[] good = Files.readAllBytes(entry);
        byte[] bad = good.clone();
        bad[bad.length / 2] ^= 0x04;
        Files.write(entry, bad);
        Jvm.App again = run(java, cache, List.of());
        assertFalse(fromCache(again), again.result().stderr());
        assertEquals(2, again.cpus().size(), again.result().toString());
        assertArrayEquals(good, Files.readAllBytes(entry));
    }
}
