package io.qv4j.agent.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The agent's JNI library: where it is cached when the home cache cannot be written (native access: NativeAccessIT). */
class NativeBindingIT {

    private static Jvm.App poolApp(Path java, List<String> jvmArgs) throws Exception {
        // no XDG_CACHE_HOME: the home cache is user.home's, made unwritable by the caller
        return Jvm.app(java, List.of("env", "-u", "XDG_CACHE_HOME"), jvmArgs, "split-at=core,color=spread",
                List.of("target/test-classes"), "io.qv4j.testapps.PoolApp", Set.of("thread"), "fixed", "2");
    }

    private static Object binder(Jvm.App run) {
        return ((Map<?, ?>) run.report().get("agent")).get("binder");
    }

    /**
     * user.home below a regular file (unwritable even for root): the library goes to an
     * owner-only directory under java.io.tmpdir and the agent binds through it; a cached copy
     * that differs from the jar's is rewritten before it is loaded.
     */
    @Test
    void unwritableHomeFallsBackToAnOwnerOnlyTemporaryDirectory(@TempDir Path dir) throws Exception {
        Path file = Files.createFile(dir.resolve("not-a-directory"));
        Path tmp = Files.createDirectory(dir.resolve("tmp"));
        List<String> args = List.of("-Duser.home=" + file.resolve("home"), "-Djava.io.tmpdir=" + tmp);
        Path java = Jvm.javas().get(0);

        Jvm.App first = poolApp(java, args);
        assertEquals(0, first.result().exitCode(), first.result().toString());
        assertEquals("native", binder(first), first.report().toString());
        Path cache = tmp.resolve("qv4j-" + System.getProperty("user.name"));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(cache, LinkOption.NOFOLLOW_LINKS)));
        List<Path> libs;
        try (Stream<Path> s = Files.list(cache)) {
            libs = s.filter(p -> p.getFileName().toString().endsWith(".so")).toList();
        }
        assertEquals(1, libs.size(), libs.toString());
        byte[] good = Files.readAllBytes(libs.get(0));

        byte[] bad = good.clone();
        bad[bad.length / 2] ^= 1; // same size, one bit off
        Files.write(libs.get(0), bad);
        Jvm.App second = poolApp(java, args);
        assertEquals("native", binder(second), second.report().toString());
        assertArrayEquals(good, Files.readAllBytes(libs.get(0)), "the damaged cached library was not rewritten");
    }
}
