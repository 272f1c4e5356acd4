package io.qv4j.agent.cli.plan;

import io.qv4j.topology.HwObject;
import io.qv4j.topology.HwType;
import io.qv4j.topology.HwlocXml;
import io.qv4j.topology.Topology;
import io.qv4j.topology.linux.SysfsReader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import javax.tools.ToolProvider;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The fixtures' expected summaries are what {@code scripts/LstopoSummary.java}, which shares no
 * code with qv4j, makes of hwloc's own reading of each machine; so anyone can add a machine the
 * same way (fixtures/README.md).
 */
class LstopoSummaryTest {

    static final Path TOOL = Path.of(System.getProperty("basedir", "."), "..", "scripts", "LstopoSummary.java")
            .toAbsolutePath().normalize();
    /** The hwloc release the sysfs dumps' expected files were made with; others may read a dump differently. */
    static final String HWLOC = "lstopo 2.9.";
    private static final String XML = "machine.xml";

    static Method summarize;
    /** Each dump unpacked and read by lstopo once for all the tests of this class (a run costs seconds). */
    @TempDir
    static Path shared;
    private static final Map<Path, Path> READ = new HashMap<>();
    private static Boolean hasHwloc;

    /** Compiled once, in-process: a source-launcher run per fixture would cost a JVM and a javac each. */
    @BeforeAll
    static void compileTool(@TempDir Path classes) throws Exception {
        assertTrue(Files.isRegularFile(TOOL), "missing " + TOOL);
        int rc = ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(), TOOL.toString());
        assertEquals(0, rc, "javac " + TOOL);
        ClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, null);
        summarize = loader.loadClass("LstopoSummary").getMethod("summarize", File.class);
    }

    static Stream<Path> xmlFixtures() throws Exception {
        return TopologyFixtureTest.fixtureInputs().filter(p -> p.toString().endsWith(".xml"));
    }

    static Stream<Path> sysfsFixtures() throws Exception {
        return TopologyFixtureTest.fixtureInputs().filter(p -> p.toString().endsWith(".tar.bz2"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("xmlFixtures")
    void xmlFixtureExpectedFileIsTheToolsOutput(Path xml) throws Exception {
        assertEquals(Files.readString(expectedFile(xml)), summarize.invoke(null, xml.toFile()), xml.getFileName().toString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sysfsFixtures")
    void sysfsFixtureExpectedFileIsTheToolsOutputOnLstoposXml(Path dump) throws Exception {
        Path read = lstopoXml(dump);
        assertEquals(Files.readString(expectedFile(dump)), summarize.invoke(null, read.resolve(XML).toFile()), dump.getFileName().toString());
    }

    /** Every cache's size as hwloc reads it from the same dump (its XML, through our reader of hwloc XML). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("sysfsFixtures")
    void sysfsCacheSizesAreLstopos(Path dump) throws Exception {
        Path read = lstopoXml(dump);
        Path root = TopologyFixtureTest.dump(dump);
        Map<String, Long> lstopo = cacheSizes(HwlocXml.read(read.resolve(XML)));
        assertTrue(lstopo.isEmpty() || lstopo.values().stream().anyMatch(size -> size > 0), "lstopo's XML gives sizes: " + lstopo);
        assertEquals(lstopo, cacheSizes(SysfsReader.read(root)), dump.getFileName().toString());
    }

    /** A directory holding lstopo's reading of {@code dump} as {@code XML}, made once. */
    private static synchronized Path lstopoXml(Path dump) throws Exception {
        assumeHwloc();
        Path read = READ.get(dump);
        if (read == null) {
            read = Files.createDirectory(shared.resolve("read-" + READ.size()));
            run("lstopo", "-i", TopologyFixtureTest.dump(dump).toString(), "--disallowed", "--of", "xml", read.resolve(XML).toString());
            READ.put(dump, read);
        }
        return read;
    }

    private static synchronized void assumeHwloc() throws Exception {
        if (hasHwloc == null) hasHwloc = run("lstopo", "--version").startsWith(HWLOC);
        assumeTrue(hasHwloc, "needs " + HWLOC + "x (Debian: hwloc-nox)");
    }

    private static Map<String, Long> cacheSizes(Topology t) {
        Map<String, Long> out = new TreeMap<>();
        for (HwType level : List.of(HwType.L1, HwType.L2, HwType.L3)) {
            for (HwObject c : t.objects(level)) out.put(level + " " + c.cpuset(), c.cacheSize());
        }
        return out;
    }

    @Test
    void commandLinePrintsTheSummary() throws Exception {
        Path xml = xmlFixtures().findFirst().orElseThrow();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        assertEquals(Files.readString(expectedFile(xml)), run(java, TOOL.toString(), xml.toString()));
    }

    /** Each fixture's {@code NAME.cpukinds} is what lstopo prints of its CPU kinds ({@code --cpukinds}, from the first kind on). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    void cpuKindsFileIsLstoposOutput(Path input) throws Exception {
        assumeHwloc();
        Path in = input.toString().endsWith(".xml") ? input : TopologyFixtureTest.dump(input);
        String all = run("lstopo", "-i", in.toString(), "--cpukinds");
        int from = all.indexOf("CPU kind #");
        assertEquals(Files.readString(kindsFile(input)), from < 0 ? "" : all.substring(from), input.getFileName().toString());
    }

    static Stream<Path> fixtures() throws Exception {
        return TopologyFixtureTest.fixtureInputs();
    }

    static Path kindsFile(Path input) {
        return input.resolveSibling(input.getFileName().toString().replaceAll("\\.(tar\\.bz2|xml)$", "") + ".cpukinds");
    }

    static Path expectedFile(Path input) {
        return input.resolveSibling(input.getFileName().toString().replaceAll("\\.(tar\\.bz2|xml)$", "") + ".expected.json");
    }

    /** stdout of a command that must succeed; "" when the program does not exist. */
    static String run(String... command) throws Exception {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException notInstalled) {
            return "";
        }
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " did not finish");
        assertEquals(0, p.exitValue(), String.join(" ", command));
        return out;
    }
}
