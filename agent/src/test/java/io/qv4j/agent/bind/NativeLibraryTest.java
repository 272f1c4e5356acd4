package io.qv4j.agent.bind;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The prebuilt JNI libraries in src/main/resources are what scripts/build-native makes of
 * src/main/c/qv_affinity.c: always by the checksums the script recorded, and, where both
 * compilers of the recorded versions exist and the tests run on the JDK whose {@code jni.h} they
 * were built with, by rebuilding them byte for byte. Where qemu-user
 * exists, the aarch64 library runs (a small C harness calls its binding functions), and both run
 * the processor count against a stand-in for the JVM.
 */
class NativeLibraryTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Path SOURCE = ROOT.resolve("agent/src/main/c/qv_affinity.c");
    private static final Path RESOURCES = ROOT.resolve("agent/src/main/resources/io/qv4j/agent/bind/native");
    private static final Map<String, Integer> ARCHES = Map.of("amd64", Elf.X86_64, "aarch64", Elf.AARCH64);

    private static Map<String, String> recorded() throws IOException {
        Map<String, String> m = new HashMap<>();
        for (String line : Files.readAllLines(ROOT.resolve("agent/src/main/c/checksums"))) {
            if (line.startsWith("#") || line.isBlank()) continue;
            int sp = line.lastIndexOf(' ');
            m.put(line.substring(0, sp), line.substring(sp + 1));
        }
        return m;
    }

    private static String sha256(Path p) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
    }

    @Test
    void committedLibrariesAreBuiltFromTheCommittedSource() throws Exception {
        Map<String, String> r = recorded();
        assertEquals(r.get("source"), sha256(SOURCE), "qv_affinity.c changed since the libraries were built: run scripts/build-native");
        for (String arch : ARCHES.keySet()) {
            assertEquals(r.get(arch), sha256(RESOURCES.resolve(arch + "/libqv4j.so")), arch + "/libqv4j.so is not what scripts/build-native recorded");
        }
    }

    @Test
    void librariesAreForTheirMachineAndNeedNoSharedLibrary() throws Exception {
        for (Map.Entry<String, Integer> a : ARCHES.entrySet()) {
            byte[] lib = Files.readAllBytes(RESOURCES.resolve(a.getKey() + "/libqv4j.so"));
            assertEquals(a.getValue(), Elf.machine(lib), a.getKey());
            assertEquals(List.of(), Elf.needed(lib), a.getKey() + ": NEEDED entries");
            assertTrue(lib.length < 16 * 1024, a.getKey() + ": " + lib.length + " bytes");
        }
    }

    @Test
    void rebuildingGivesTheSameBytes(@TempDir Path out) throws Exception {
        Map<String, String> r = recorded();
        assumeTrue(r.get("compiler amd64").equals(version("gcc")), "gcc of the recorded version");
        assumeTrue(r.get("compiler aarch64").equals(version("aarch64-linux-gnu-gcc")), "aarch64-linux-gnu-gcc of the recorded version");
        // the script builds against this JDK's jni.h (run below sets JAVA_HOME), whose bytes differ between releases
        assumeTrue(r.get("jni.h of JDK").equals(String.valueOf(Runtime.version().feature())), "running on JDK " + r.get("jni.h of JDK"));
        Result b = run(ROOT, List.of("bash", ROOT.resolve("scripts/build-native").toString(), out.toString()));
        assertEquals(0, b.code, b.output);
        for (String arch : ARCHES.keySet()) {
            assertArrayEquals(Files.readAllBytes(RESOURCES.resolve(arch + "/libqv4j.so")), Files.readAllBytes(out.resolve(arch + "/libqv4j.so")), arch);
        }
    }

    @Test
    void aarch64LibraryBindsUnderQemuAndHasNoCpuid(@TempDir Path dir) throws Exception {
        Result h = harness(dir, "aarch64", "affinity_harness.c");
        assertEquals(0, h.code, h.output);
        assertTrue(h.output.matches("(?s)tid=\\d+ before=0x[0-9a-f]+ after=0x[0-9a-f]+ cpu=\\d+ restored=0x[0-9a-f]+ cpuid=38\\s*"), h.output);
    }

    /**
     * The processor count and the thread marks, with a stand-in for the JVM (count_harness.c):
     * the JVM's function is taken as the native binds again, a thread qv4j placed answers the
     * scope's count until its mask is changed by someone else, every other thread the JVM's, and
     * the mask a thread started with is kept. On both libraries.
     */
    @ParameterizedTest
    @ValueSource(strings = {"amd64", "aarch64"})
    void aPlacedThreadAnswersTheScopesCountAndOthersTheJvms(String arch, @TempDir Path dir) throws Exception {
        Result h = harness(dir, arch, "count_harness.c");
        assertEquals(0, h.code, h.output);
        assertTrue(h.output.matches("(?s)pus=\\d+ bound=0 jvm=(\\d+) unmarked=\\1 placed=5 kept=1,[01] soon=\\d+ moved=(\\1|-) ended=\\1\\s*"), h.output);
    }

    /**
     * The lock probe (lock_harness.c): a plain file's probe names its device and inode, and sees
     * nobody, this process, a child, then nobody again as locks come and go; a link, a FIFO and a
     * missing file get none; retired, it is closed only once its file is deleted. On both
     * libraries: the system call numbers, flags and struct layouts differ between them.
     */
    @ParameterizedTest
    @ValueSource(strings = {"amd64", "aarch64"})
    void theLockProbeSeesEveryHolderOpensOnlyPlainFilesAndClosesOnlyForDeletedOnes(String arch, @TempDir Path dir) throws Exception {
        Result h = harness(dir, arch, "lock_harness.c");
        assertEquals(0, h.code, h.output);
        assertEquals("free=0 own=1 child=1 after=0 link=-40 fifo=-22 none=-2 linked=1 deleted=0 closed=1", h.output.trim());
    }

    /**
     * Compiles {@code agent/src/test/c/SOURCE} against the {@code arch} library and runs it: natively
     * on this machine's own architecture, under qemu-user for aarch64 elsewhere; skipped without
     * the compiler or qemu.
     */
    private static Result harness(Path dir, String arch, String source) throws Exception {
        boolean here = arch.equals(System.getProperty("os.arch"));
        String cc = here ? "gcc" : "aarch64-linux-gnu-gcc";
        String qemu = onPath("qemu-aarch64-static") ? "qemu-aarch64-static" : onPath("qemu-aarch64") ? "qemu-aarch64" : null;
        assumeTrue(here || arch.equals("aarch64") && qemu != null && version(cc) != null && Files.isDirectory(Path.of("/usr/aarch64-linux-gnu")),
                "qemu-user and Debian's aarch64 cross compiler");
        assumeTrue(version(cc) != null, cc + " to build the harness");
        Files.copy(RESOURCES.resolve(arch + "/libqv4j.so"), dir.resolve("libqv4j.so"));
        String jdk = System.getProperty("java.home");
        Result c = run(dir, List.of(cc, "-Wall", "-O1", "-I" + jdk + "/include", "-I" + jdk + "/include/linux",
                "-o", "harness", ROOT.resolve("agent/src/test/c/" + source).toString(), "-L.", "-lqv4j", "-Wl,-rpath,$ORIGIN"));
        assertEquals(0, c.code, c.output);
        return here ? run(dir, List.of("./harness")) : run(dir, List.of(qemu, "-L", "/usr/aarch64-linux-gnu", "./harness"));
    }

    private record Result(int code, String output) {
    }

    private static Result run(Path dir, List<String> cmd) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home")); // jni.h for scripts/build-native
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "timed out: " + cmd);
        return new Result(p.exitValue(), out);
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool))) return true;
        }
        return false;
    }

    /** The compiler's {@code -dumpfullversion}, or null where it is missing. */
    private static String version(String compiler) throws Exception {
        if (!onPath(compiler)) return null;
        Result r = run(ROOT, List.of(compiler, "-dumpfullversion"));
        return r.code == 0 ? r.output.trim() : null;
    }

    /**
     * On JDK 24 and later the library binds NativeAffinity's methods itself (QvNative's bind, JNI
     * RegisterNatives): its table names every native method with its descriptor and function,
     * and nothing else. A method missing there would fail at its first call there.
     */
    @Test
    void theLibrarysBindTableIsNativeAffinitysNativeMethods() throws Exception {
        String c = Files.readString(SOURCE);
        String table = c.substring(c.indexOf("Java_java_util_concurrent_QvNative_bind"));
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("\\{\"(\\w+)\", \"([^\"]+)\",\\s*\\(void \\*\\) (\\w+)}").matcher(table);
        Map<String, String> bound = new HashMap<>();
        while (m.find()) {
            assertEquals("Java_io_qv4j_agent_bind_NativeAffinity_" + m.group(1), m.group(3), "the function bound to " + m.group(1));
            bound.put(m.group(1), m.group(2));
        }
        Map<String, String> declared = new HashMap<>();
        for (java.lang.reflect.Method d : NativeAffinity.class.getDeclaredMethods()) {
            if (!java.lang.reflect.Modifier.isNative(d.getModifiers())) continue;
            declared.put(d.getName(), java.lang.invoke.MethodType.methodType(d.getReturnType(), d.getParameterTypes()).toMethodDescriptorString());
        }
        assertEquals(20, declared.size(), declared.toString());
        assertEquals(declared, bound);
    }
}
