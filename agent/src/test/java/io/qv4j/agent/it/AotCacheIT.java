package io.qv4j.agent.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * JDK 25's AOT cache with the agent: a training run ({@code -XX:AOTCacheOutput}) under the agent
 * ends normally and writes the cache, and a run from that cache under the agent places its pool.
 * JDK 25 crashed writing the cache after the agent had redefined {@code java.lang.Thread}: with the
 * JNI library it is never redefined (JVMTI's thread events), and without it a training run leaves
 * it alone.
 */
class AotCacheIT {

    /** The AOT cache takes class paths of jars only. */
    private static Path appJar(Path dir) throws Exception {
        Path jar = dir.resolve("app.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry("io/qv4j/testapps/PoolApp.class"));
            out.write(Files.readAllBytes(Path.of("target/test-classes/io/qv4j/testapps/PoolApp.class")));
            out.closeEntry();
        }
        return jar;
    }

    private static Jvm.Result run(Path java, Path agent, String aotOption, Path app, Path dir) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("env", "XDG_CACHE_HOME=" + dir.resolve("cache"), java.toString(), aotOption,
                "-XX:ErrorFile=" + dir.resolve("hs_err_%p.log"),
                "-javaagent:" + agent + "=split-at=core,color=spread,verbose=true,claims-dir=" + Files.createTempDirectory(dir, "claims"),
                "-cp", app.toString(), "io.qv4j.testapps.PoolApp", "fixed", "2"));
        return Jvm.run(cmd);
    }

    /**
     * A training run under {@code agent}, checked to end normally and write the cache without a
     * JVM crash, then a run from that cache; both results.
     */
    private static Jvm.Result[] trainThenRun(Path agent, Path dir) throws Exception {
        Path java = Jvm.atLeast(25);
        assumeTrue(java != null, "a JDK 25 under /usr/lib/jvm");
        Path app = appJar(dir);
        Path aot = dir.resolve("app.aot");
        Jvm.Result training = run(java, agent, "-XX:AOTCacheOutput=" + aot, app, dir);
        assertEquals(0, training.exitCode(), training.toString());
        assertTrue(Files.size(aot) > 0, "the cache is written");
        try (var s = Files.list(dir)) {
            assertFalse(s.anyMatch(p -> p.getFileName().toString().startsWith("hs_err")), "no JVM crash");
        }
        Jvm.Result fromCache = run(java, agent, "-XX:AOTCache=" + aot, app, dir);
        assertEquals(0, fromCache.exitCode(), fromCache.toString());
        assertFalse(fromCache.stderr().contains("writes an AOT cache"), fromCache.stderr());
        return new Jvm.Result[] {training, fromCache};
    }

    @Test
    void aTrainingRunUnderTheAgentWritesTheCacheAndARunFromItPlacesThePool(@TempDir Path dir) throws Exception {
        Jvm.Result[] runs = trainThenRun(Jvm.agentJar(), dir);
        for (Jvm.Result r : runs) {
            assertTrue(r.stderr().contains("plain threads from JVMTI thread events"), r.stderr());
            assertFalse(r.stderr().contains("WARNING: A restricted method"), "no native-access flag needed: " + r.stderr());
        }
        List<String> masks = new ArrayList<>();
        for (String line : runs[1].stdout().split("\n")) {
            if (line.startsWith("thread ")) masks.add(line.substring(line.indexOf("cpus=") + 5));
        }
        assertEquals(2, masks.size(), runs[1].stdout());
        Allowed all = Allowed.unrestricted();
        if (all.cores().size() >= 2) assertEquals(2, Set.copyOf(masks).size(), "one core each: " + masks);
        else assertEquals(List.of(all.allowed(), all.allowed()), masks);
    }

    @Test
    void withoutTheJniLibraryATrainingRunLeavesThreadAloneAndSaysSoAndARunFromTheCacheHooksIt(@TempDir Path dir) throws Exception {
        Path noJni = Jvm.agentJarWithoutJni();
        try {
            Jvm.Result[] runs = trainThenRun(noJni, dir);
            assertTrue(runs[0].stderr().contains("qv: this JVM writes an AOT cache"), runs[0].stderr());
            assertTrue(runs[1].stderr().contains("java.lang.Thread=run"), "a normal run hooks Thread: " + runs[1].stderr());
        } finally {
            Files.delete(noJni);
        }
    }
}
