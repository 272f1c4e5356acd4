package io.qv4j.agent.it;

import io.qv4j.agent.bind.Elf;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The built jar: what it carries, what it lets the application see, and that it is the artifact
 * Maven installs. Only the API and the launcher are classes; everything else is hidden under
 * {@code inst/}.
 */
class AgentJarIT {

    private static final String LAUNCHER = "io.qv4j.agent.launch.AgentLauncher";
    private static final Pattern HIDDEN_CLASS = Pattern.compile("(META-INF/versions/\\d+/)?inst/(.+)\\.classdata");

    private static List<String> names() throws IOException {
        try (JarFile jar = new JarFile(Jvm.agentJar().toFile())) {
            List<String> out = new ArrayList<>();
            for (JarEntry e : Collections.list(jar.entries())) out.add(e.getName());
            return out;
        }
    }

    @Test
    void onlyTheApiAndTheLauncherAreClasses() throws Exception {
        List<String> strays = new ArrayList<>();
        int hidden = 0;
        for (String n : names()) {
            if (n.endsWith(".class") && !visibleByDesign(n)) strays.add(n);
            if (HIDDEN_CLASS.matcher(n).matches()) hidden++;
        }
        assertTrue(strays.isEmpty(), "classes the application could load: " + strays.subList(0, Math.min(20, strays.size())));
        assertTrue(names().contains("io/qv4j/api/Platform.class"));
        assertTrue(names().contains("inst/io/qv4j/agent/QvAgent.classdata"));
        assertTrue(libraryClasses().containsKey("com.sun.jna.Native"));
        assertTrue(hidden + libraryClasses().size() > 1000, hidden + " hidden classes and " + libraryClasses().size() + " in the libraries' entry");
    }

    /**
     * A stored-classes entry ({@code inst/qv4j-classes.bin}, {@code inst/qv4j-libs.bin}) read as the
     * agent's loader reads it: binary name → the class's bytes at its offset.
     */
    private static Map<String, byte[]> storedClasses(String entry) throws IOException {
        Map<String, byte[]> out = new TreeMap<>();
        try (JarFile jar = new JarFile(Jvm.agentJar().toFile())) {
            JarEntry e = jar.getJarEntry(entry);
            assertNotNull(e, entry);
            assertEquals(ZipEntry.STORED, e.getMethod(), entry + " is stored, so that it is read without inflating and at any offset");
            byte[] all;
            try (InputStream in = jar.getInputStream(e)) {
                all = in.readAllBytes();
            }
            DataInputStream ix = new DataInputStream(new ByteArrayInputStream(all));
            int indexLength = ix.readInt();
            for (int read = 0; read < indexLength; ) {
                byte[] name = new byte[ix.readInt()];
                ix.readFully(name);
                int offset = ix.readInt();
                int length = ix.readInt();
                read += 12 + name.length;
                String binary = new String(name, StandardCharsets.UTF_8);
                assertFalse(out.containsKey(binary), "twice: " + binary);
                out.put(binary, Arrays.copyOfRange(all, 4 + indexLength + offset, 4 + indexLength + offset + length));
            }
        }
        return out;
    }

    private static Map<String, byte[]> libraryClasses() throws IOException {
        return storedClasses("inst/qv4j-libs.bin");
    }

    /**
     * The dependencies' classes are in {@code inst/qv4j-libs.bin}, each a whole class file at its
     * offset, and not entries of their own: every start reads the jar's directory, which they made
     * seven times longer. The agent's own classes keep their entries (the fallback of their stored copy).
     */
    @Test
    void dependencyClassesAreInTheLibrariesEntryNotEntriesOfTheirOwn() throws Exception {
        Map<String, byte[]> libs = libraryClasses();
        for (String g : List.of("io.qv4j.shaded.bytebuddy.", "io.qv4j.shaded.oshi.", "io.qv4j.shaded.openhft.", "io.qv4j.shaded.slf4j.", "com.sun.jna.")) {
            assertTrue(libs.keySet().stream().anyMatch(c -> c.startsWith(g)), g);
        }
        for (Map.Entry<String, byte[]> c : libs.entrySet()) {
            byte[] b = c.getValue();
            assertTrue(b.length > 4 && (b[0] & 0xff) == 0xca && (b[1] & 0xff) == 0xfe && (b[2] & 0xff) == 0xba && (b[3] & 0xff) == 0xbe, c.getKey());
            assertFalse(c.getKey().startsWith("io.qv4j.") && !c.getKey().startsWith("io.qv4j.shaded."), "an own class among the libraries: " + c.getKey());
        }
        List<String> entries = names();
        for (String n : entries) {
            Matcher m = HIDDEN_CLASS.matcher(n);
            if (m.matches()) assertFalse(libs.containsKey(m.group(2).replace('/', '.')), "also an entry: " + n);
        }
        // the agent's own classes and resources are some 400 entries; the libraries' classes as
        // entries of their own would add thousands
        assertTrue(entries.size() < 600, entries.size() + " entries");
    }

    /**
     * Without the JNI library the agent binds through OpenHFT and JNA, whose classes come from the
     * libraries' entry (and JNA's native library from its own entry), on every JDK here.
     */
    @Test
    void withoutTheJniLibraryTheJnaFallbackLoadsFromTheLibrariesEntryAndBinds() throws Exception {
        Path jar = Jvm.agentJarWithoutJni();
        try {
            for (Path java : Jvm.javas()) {
                Jvm.App run = Jvm.app(java, jar, List.of(), List.of(), "split-at=core,color=spread", List.of("target/test-classes"),
                        "io.qv4j.testapps.PoolApp", Set.of("thread"), "fixed", "2");
                assertEquals(0, run.result().exitCode(), run.result().toString());
                assertEquals("openhft LinuxJNAAffinity", ((Map<?, ?>) run.report().get("agent")).get("binder"), java + ": " + run.report());
                assertEquals(2, run.cpus().size(), run.result().toString());
                if (Allowed.unrestricted().cores().size() >= 2) assertEquals(2, Set.copyOf(run.cpus().values()).size(), "a core each: " + run.cpus());
            }
        } finally {
            Files.delete(jar);
        }
    }

    /** The launcher, or an API class: ours, not shaded, and not one of the agent's own (target/classes). */
    private static boolean visibleByDesign(String entry) {
        String n = entry.replaceFirst("^META-INF/versions/\\d+/", "");
        if (n.startsWith("io/qv4j/agent/launch/")) return true;
        return n.startsWith("io/qv4j/") && !n.startsWith("io/qv4j/shaded/") && !Files.exists(Path.of("target/classes", n));
    }

    @Test
    void manifestMakesTheLauncherTheAgentAndTheCommand() throws Exception {
        try (JarFile jar = new JarFile(Jvm.agentJar().toFile())) {
            Attributes a = jar.getManifest().getMainAttributes();
            assertEquals(LAUNCHER, a.getValue("Premain-Class"));
            assertEquals(LAUNCHER, a.getValue("Agent-Class"));
            assertEquals(LAUNCHER, a.getValue("Main-Class"));
            assertEquals("true", a.getValue("Multi-Release"));
            assertEquals("true", a.getValue("Can-Retransform-Classes"));
            assertEquals("qv4j", a.getValue("Implementation-Title"));
        }
    }

    /** The internal classifier jar (the agent's classes for this project's benchmarks) is no agent: -javaagent on it would fail to start. */
    @Test
    void theInternalJarCarriesNoAgentManifest() throws Exception {
        Path internal = Jvm.agentJar().resolveSibling("qv-agent-internal.jar");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(internal), "no internal jar beside " + Jvm.agentJar());
        try (JarFile jar = new JarFile(internal.toFile())) {
            Attributes a = jar.getManifest().getMainAttributes();
            for (String key : new String[] {"Premain-Class", "Agent-Class", "Main-Class", "Launcher-Agent-Class"}) assertNull(a.getValue(key), key);
        }
    }

    /** Every class the jar hides, asked for by name from application code under -javaagent. */
    @Test
    void applicationCodeCannotLoadWhatTheJarCarries() throws Exception {
        Set<String> hidden = new TreeSet<>(libraryClasses().keySet());
        for (String n : names()) {
            Matcher m = HIDDEN_CLASS.matcher(n);
            if (m.matches()) hidden.add(m.group(2).replace('/', '.'));
        }
        assertTrue(hidden.contains("com.sun.jna.Native"));
        assertTrue(hidden.stream().anyMatch(c -> c.startsWith("io.qv4j.shaded.bytebuddy.")));
        for (String g : List.of("oshi", "openhft", "slf4j")) assertTrue(hidden.stream().anyMatch(c -> c.startsWith("io.qv4j.shaded." + g + ".")), g);
        Path list = Files.createTempFile("qv-hidden", ".txt");
        Files.write(list, hidden);
        try {
            for (Path java : Jvm.javas()) {
                Jvm.App run = Jvm.app(java, List.of(), List.of(), "split-at=core,color=spread", List.of("target/test-classes"),
                        "io.qv4j.testapps.VisibilityApp", Set.of(), list.toString());
                String out = run.result().stdout();
                assertTrue(out.contains("\ndone\n"), java + ": " + run.result());
                assertFalse(out.contains("visible "), java + ": application code loaded hidden classes:\n" + out);
                // the API is visible and finds the live platform through the launcher
                assertTrue(out.contains("platform io.qv4j.agent.launch.AgentPlatform "), out);
                assertEquals("native", ((Map<?, ?>) run.report().get("agent")).get("binder"), java + ": " + run.report());
            }
        } finally {
            Files.delete(list);
        }
    }

    @Test
    void nativeLibrariesOnlyForLinuxX8664AndAarch64() throws Exception {
        Set<String> jna = new TreeSet<>();
        Pattern jnaNative = Pattern.compile("inst/com/sun/jna/([^/]+)/[^/]*jnidispatch[^/]*");
        try (JarFile jar = new JarFile(Jvm.agentJar().toFile())) {
            for (String n : names()) {
                Matcher m = jnaNative.matcher(n);
                if (m.matches()) jna.add(m.group(1));
            }
            for (String arch : List.of("amd64", "aarch64")) {
                JarEntry e = jar.getJarEntry("inst/io/qv4j/agent/bind/native/" + arch + "/libqv4j.so");
                assertNotNull(e, arch);
                try (InputStream in = jar.getInputStream(e)) {
                    assertEquals(List.of(), Elf.needed(in.readAllBytes()), arch + ": shared libraries needed");
                }
            }
        }
        assertEquals(Set.of("linux-x86-64", "linux-aarch64"), jna);
    }

    /**
     * Each bundled artifact (as Maven resolved them for the build) is named with its version in
     * META-INF/THIRD-PARTY.txt, and each license file its own jar carries is in ours, whole, under
     * META-INF/licenses/ARTIFACT/; an artifact without one gets it there by hand.
     */
    @Test
    void everyBundledArtifactIsListedWithItsLicensesWhole() throws Exception {
        List<String> bundled = Files.readAllLines(Path.of(System.getProperty("it.bundled", "target/bundled.txt")));
        Pattern line = Pattern.compile("\\s*([^:\\s]+):([^:]+):jar:([^:]+):(?:compile|runtime):(/[^ ]+\\.jar).*");
        Pattern license = Pattern.compile("META-INF/(LICENSE[^/]*|NOTICE[^/]*|AL2\\.0|LGPL2\\.1|licenses/[^/]+)");
        int artifacts = 0;
        try (JarFile jar = new JarFile(Jvm.agentJar().toFile())) {
            String thirdParty = new String(jar.getInputStream(jar.getJarEntry("META-INF/THIRD-PARTY.txt")).readAllBytes(), StandardCharsets.UTF_8);
            for (String l : bundled) {
                Matcher m = line.matcher(l);
                if (!m.matches()) continue;
                artifacts++;
                String artifact = m.group(2);
                assertTrue(thirdParty.contains(m.group(1) + ":" + artifact + ":" + m.group(3) + " "), "THIRD-PARTY.txt lacks " + l.trim());
                String dir = "META-INF/licenses/" + artifact + "/";
                assertTrue(names().stream().anyMatch(n -> n.startsWith(dir) && !n.equals(dir)), "no license for " + artifact);
                try (JarFile dep = new JarFile(m.group(4))) {
                    for (JarEntry e : Collections.list(dep.entries())) {
                        if (e.isDirectory() || !license.matcher(e.getName()).matches()) continue;
                        String base = e.getName().substring(e.getName().lastIndexOf('/') + 1);
                        JarEntry ours = jar.getJarEntry(dir + base);
                        assertNotNull(ours, artifact + ": " + e.getName() + " missing");
                        assertArrayEquals(dep.getInputStream(e).readAllBytes(), jar.getInputStream(ours).readAllBytes(), artifact + ": " + e.getName());
                    }
                }
            }
        }
        assertTrue(artifacts >= 5, "bundled artifacts read: " + artifacts + " from " + bundled);
    }

    /**
     * What {@code mvn install} copies into a repository is the project's main artifact file: it
     * must be this jar, and an agent from it pins a pool: the kernel shows each of two workers on
     * its own part of the allowed set (both on the one PU where only one is allowed).
     */
    @Test
    void mainArtifactIsThisJarAndPinsAPool() throws Exception {
        Path main = Path.of(System.getProperty("it.mainArtifact", "target/qv-agent.jar"));
        assertTrue(Files.isSameFile(Jvm.agentJar(), main), "main artifact " + main + " is not " + Jvm.agentJar());
        Path java = Jvm.javas().get(0);
        Jvm.Result r = Jvm.run(List.of(java.toString(), "-javaagent:" + main + "=split-at=pu,color=spread",
                "-cp", "target/test-classes", "io.qv4j.testapps.PoolApp", "fixed", "2"));
        assertEquals(0, r.exitCode(), r.toString());
        Set<Integer> allowed = null;
        for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (l.startsWith("Cpus_allowed_list:")) allowed = pus(l.substring(l.indexOf(':') + 1).trim());
        }
        List<Set<Integer>> workers = new ArrayList<>();
        for (String l : r.stdout().split("\n")) {
            if (l.startsWith("thread ")) workers.add(pus(l.substring(l.indexOf("cpus=") + 5)));
        }
        assertEquals(2, workers.size(), r.stdout());
        for (Set<Integer> w : workers) assertTrue(!w.isEmpty() && allowed.containsAll(w), w + " not within " + allowed);
        if (allowed.size() >= 2) {
            assertTrue(Collections.disjoint(workers.get(0), workers.get(1)), "workers share PUs: " + r.stdout());
        }
    }

    /**
     * {@code inst/qv4j-classes.bin} holds the agent's own classes, one after another, so that a
     * start reads one entry instead of a hundred: exactly the hidden {@code io.qv4j} classes that
     * are not shaded, each with the bytes of its own entry.
     */
    @Test
    void ownClassesEntryHoldsEveryOwnClassWithItsEntrysBytes() throws Exception {
        Map<String, byte[]> stored = storedClasses("inst/qv4j-classes.bin");
        Set<String> expected = new TreeSet<>();
        try (JarFile jar = new JarFile(Jvm.agentJar().toFile())) {
            for (JarEntry e : Collections.list(jar.entries())) {
                String n = e.getName();
                if (!n.startsWith("inst/io/qv4j/") || n.startsWith("inst/io/qv4j/shaded/") || !n.endsWith(".classdata")) continue;
                String binary = n.substring(5, n.length() - 10).replace('/', '.');
                expected.add(binary);
                try (InputStream in = jar.getInputStream(e)) {
                    assertArrayEquals(in.readAllBytes(), stored.get(binary), binary);
                }
            }
        }
        assertTrue(expected.contains("io.qv4j.agent.QvAgent"), expected.toString());
        assertEquals(expected, stored.keySet());
    }

    /** A jar whose one-entry copy of the classes is cut short still starts the agent from the classes' own entries. */
    @Test
    void damagedOwnClassesEntryFallsBackToTheClassesOwnEntries() throws Exception {
        Path damaged = Jvm.copyOfAgentJar("qv-damaged", (name, bytes) -> name.equals("inst/qv4j-classes.bin") ? Arrays.copyOf(bytes, bytes.length / 2 + 3) : bytes);
        try {
            Jvm.Result r = Jvm.run(List.of(Jvm.javas().get(0).toString(), "-javaagent:" + damaged + "=split-at=pu,color=spread,verbose=true",
                    "-cp", "target/test-classes", "io.qv4j.testapps.PoolApp", "fixed", "2"));
            assertEquals(0, r.exitCode(), r.toString());
            assertTrue(r.stderr().contains("qv: pool pool-1[1/2] thread"), "the agent placed the pool: " + r);
        } finally {
            Files.delete(damaged);
        }
    }

    /** A Linux cpulist ({@code 0-3,8}) as a set. */
    private static Set<Integer> pus(String list) {
        Set<Integer> out = new TreeSet<>();
        for (String range : list.split(",")) {
            String[] ab = range.split("-");
            for (int i = Integer.parseInt(ab[0]); i <= Integer.parseInt(ab[ab.length - 1]); i++) out.add(i);
        }
        return out;
    }
}
