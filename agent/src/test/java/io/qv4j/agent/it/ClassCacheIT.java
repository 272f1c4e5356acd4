package io.qv4j.agent.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The cache of rewritten JDK classes in real JVMs: the first start rewrites and keeps the classes,
 * the next takes them from the cache and places its workers the same way; damaged entries are
 * rewritten; a JVM whose JDK classes differ (another JDK, as after an update) rewrites its own.
 * No hooked JDK class is redefined where JVMTI's thread events replace the hook in Thread.run(), nor
 * under bind=off (no plain thread is placed); without the JNI library only Thread, loaded before
 * any agent, is.
 */
class ClassCacheIT {

    private static Jvm.App run(Path java, Path cache) throws Exception {
        return Jvm.app(java, List.of("env", "XDG_CACHE_HOME=" + cache), List.of(), "split-at=core,color=spread,verbose=true",
                List.of("target/test-classes"), "io.qv4j.testapps.PoolApp", Set.of("thread"), "fixed", "2");
    }

    /** The premain line's word for where the hooked classes came from. */
    private static String source(Jvm.App run) {
        String err = run.result().stderr();
        assertEquals(0, run.result().exitCode(), run.result().toString());
        if (err.contains("(from the cache)")) return "cache";
        if (err.contains("(rewritten)")) return "rewritten";
        return "mixed: " + err;
    }

    private static Map<Path, byte[]> entries(Path cache) throws Exception {
        Map<Path, byte[]> out = new TreeMap<>();
        try (Stream<Path> s = Files.list(cache.resolve("qv4j"))) {
            for (Path p : s.filter(p -> p.toString().endsWith(".qvclass")).toList()) out.put(p, Files.readAllBytes(p));
        }
        return out;
    }

    /**
     * The entry of {@code ForkJoinPool$WorkQueue}, a hooked class that loads in some runs only: with
     * a fork/join pool, or at a pool worker's first wait (JDK 17's condition waits block through
     * {@code ForkJoinPool.managedBlock}), on that worker, often just as {@code shutdown()} interrupts it.
     */
    private static boolean sometimes(Path entry) {
        return entry.getFileName().toString().contains("-java.util.concurrent.ForkJoinPool$WorkQueue-");
    }

    @Test
    void theSecondStartTakesTheRewritesFromTheCacheAndPlacesTheSame(@TempDir Path cache) throws Exception {
        Path java = Jvm.javas().get(0);
        Jvm.App first = run(java, cache);
        assertEquals("rewritten", source(first));
        // JDK 24+: also QvNative, the JNI library's way in through java.base (DESIGN §6.6)
        int expected = Runtime.version().feature() >= 24 ? 5 : 4;
        List<Path> always = entries(cache).keySet().stream().filter(p -> !sometimes(p)).toList();
        assertEquals(expected, always.size(), "three JDK classes (not Thread: bind=on watches threads through JVMTI), the hook class"
                + (expected == 5 ? " and QvNative" : "") + ", and ForkJoinPool$WorkQueue where it loaded: " + entries(cache).keySet());
        Jvm.App second = run(java, cache);
        assertEquals("cache", source(second));
        assertEquals(2, second.cpus().size(), second.result().toString());
        // the same plan: each worker's kernel mask is one of the first run's (the order may differ)
        assertEquals(Set.copyOf(first.cpus().values()), Set.copyOf(second.cpus().values()), first.cpus() + " vs " + second.cpus());
    }

    @Test
    void noHookedClassIsRedefinedWithTheJniLibraryOrUnderBindOffAndOnlyThreadWithoutTheLibrary(@TempDir Path cache) throws Exception {
        Path noJni = Jvm.agentJarWithoutJni();
        try {
            for (Path java : Jvm.javas()) {
                for (String run : List.of("jni bind=on", "jni bind=off", "nojni bind=on")) {
                    Jvm.App app = Jvm.app(java, run.startsWith("jni") ? Jvm.agentJar() : noJni, List.of("env", "XDG_CACHE_HOME=" + cache),
                            List.of("-Xlog:redefine+class+load=info"), "split-at=core,color=spread," + run.substring(run.indexOf(' ') + 1),
                            List.of("target/test-classes"), "io.qv4j.testapps.PoolApp", Set.of("thread"), "fj", "2");
                    String out = app.result().stdout();
                    assertEquals(2, app.cpus().size(), app.result().toString());
                    assertEquals(run.startsWith("nojni"), out.contains("redefined name=java.lang.Thread"), run + ": " + out);
                    for (String target : List.of("java.util.concurrent.ThreadPoolExecutor", "java.util.concurrent.ForkJoinPool",
                            "java.util.concurrent.ForkJoinWorkerThread", "java.util.concurrent.ForkJoinPool$WorkQueue")) {
                        assertFalse(out.contains("redefined name=" + target + ","), target + " redefined (loaded before the hooks were installed): " + out);
                    }
                }
            }
        } finally {
            Files.delete(noJni);
        }
    }

    @Test
    void damagedEntriesAreRewrittenAndTheAgentWorks(@TempDir Path cache) throws Exception {
        Path java = Jvm.javas().get(0);
        run(java, cache);
        Map<Path, byte[]> good = entries(cache);
        for (Map.Entry<Path, byte[]> e : good.entrySet()) {
            byte[] bad = e.getValue().clone();
            bad[bad.length / 2] ^= 0x40;
            Files.write(e.getKey(), bad);
        }
        Jvm.App damaged = run(java, cache);
        assertEquals("rewritten", source(damaged));
        assertEquals(2, damaged.cpus().size(), damaged.result().toString());
        Map<Path, byte[]> after = entries(cache);
        assertEquals(good.keySet().stream().filter(p -> !sometimes(p)).toList(), after.keySet().stream().filter(p -> !sometimes(p)).toList());
        for (Path p : good.keySet()) {
            if (!sometimes(p)) assertTrue(Arrays.equals(good.get(p), after.get(p)), p + " rewritten as before");
        }
    }

    @Test
    void anotherJdksClassesAreRewrittenNotTakenFromTheCache(@TempDir Path cache) throws Exception {
        List<Path> javas = Jvm.javas();
        assumeTrue(javas.size() > 1, "a second JDK under /usr/lib/jvm");
        assertEquals("rewritten", source(run(javas.get(0), cache)));
        Jvm.App other = run(javas.get(1), cache);
        assertFalse(source(other).equals("cache"), other.result().stderr());
        assertEquals(2, other.cpus().size(), other.result().toString());
        assertEquals("cache", source(run(javas.get(1), cache)));
    }
}
