package io.qv4j.agent.cli.plan;

import io.qv4j.agent.platform.TopologyInput;
import io.qv4j.agent.report.Json;
import io.qv4j.agent.report.JsonReader;
import io.qv4j.topology.CpuKind;
import io.qv4j.topology.Topology;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every real machine in the test resources' {@code fixtures/} (see its README): the summary we
 * print equals the expected one on the keys hwloc fixes. A new fixture is tested by dropping its
 * files into the folder.
 */
public class TopologyFixtureTest {

    static final List<String> KEYS = List.of("online", "allowed", "packages", "numa", "l3", "l2", "cores", "gpus", "nics");

    public static Path fixtures() throws URISyntaxException {
        URL dir = TopologyFixtureTest.class.getResource("/fixtures");
        assertNotNull(dir, "fixtures/ missing from the test class path");
        return Path.of(dir.toURI());
    }

    public static Stream<Path> fixtureInputs() throws IOException, URISyntaxException {
        Path sysfs = fixtures().resolve("sysfs");
        Path xml = fixtures().resolve("xml");
        assertTrue(Files.isDirectory(sysfs) && Files.isDirectory(xml), "fixtures not found under " + fixtures().toAbsolutePath());
        try (Stream<Path> a = Files.list(sysfs); Stream<Path> b = Files.list(xml)) {
            return Stream.concat(a.filter(p -> p.toString().endsWith(".tar.bz2")), b.filter(p -> p.toString().endsWith(".xml")))
                    .sorted().toList().stream();
        }
    }

    /** The topology a fixture holds, read as the agent and the CLI read it. */
    static Topology read(Path input) throws Exception {
        return input.toString().endsWith(".xml") ? TopologyInput.input(input.toString()) : TopologyInput.fsroot(dump(input).toString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtureInputs")
    void summaryEqualsExpected(Path input) throws Exception {
        String name = input.getFileName().toString().replaceAll("\\.(tar\\.bz2|xml)$", "");
        Map<?, ?> expected = (Map<?, ?>) JsonReader.parse(Files.readString(input.resolveSibling(name + ".expected.json")));
        Topology topology = read(input);
        Map<?, ?> actual = (Map<?, ?>) JsonReader.parse(Json.write(TopologySummary.of(topology)));
        for (String key : KEYS) {
            assertEquals(expected.get(key), onExpectedKeys(expected.get(key), actual.get(key)), name + ": key '" + key + "'");
        }
    }

    /**
     * The CPU kinds equal hwloc's, as {@code lstopo -i INPUT --cpukinds} printed them into
     * {@code NAME.cpukinds} (empty: no kinds): each kind's efficiency, PUs and info, in hwloc's order.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtureInputs")
    void cpuKindsEqualLstopos(Path input) throws Exception {
        List<String> expected = lstopoKinds(Files.readString(LstopoSummaryTest.kindsFile(input)));
        List<String> actual = new java.util.ArrayList<>();
        for (CpuKind k : read(input).cpuKinds()) actual.add(k.efficiency() + " " + k.cpus() + " " + k.info());
        assertEquals(expected, actual, input.getFileName().toString());
    }

    /** {@code lstopo --cpukinds}'s kinds ({@code CPU kind #0 efficiency 0 cpuset 0x..} and {@code "  NAME = VALUE"} lines) as "EFFICIENCY CPUS {INFO}". */
    static List<String> lstopoKinds(String text) {
        List<String> out = new java.util.ArrayList<>();
        String head = null;
        Map<String, String> info = new java.util.LinkedHashMap<>();
        for (String line : (text + "CPU kind #end\n").split("\n")) {
            if (line.startsWith("CPU kind #")) {
                if (head != null) out.add(head + " " + info);
                String[] w = line.split(" ");
                head = w.length >= 7 ? w[4] + " " + io.qv4j.topology.CpuSet.parseMask(w[6]) : null;
                info = new java.util.LinkedHashMap<>();
            } else if (line.startsWith("  ") && line.contains(" = ")) {
                info.put(line.substring(2, line.indexOf(" = ")), line.substring(line.indexOf(" = ") + 3));
            }
        }
        return out;
    }

    /**
     * Our entries may carry more than the expected ones (NUMA memory, GPU names: DESIGN §3.3
     * welcomes more keys); compare them on the expected entries' keys.
     */
    static Object onExpectedKeys(Object expected, Object actual) {
        if (!(expected instanceof List<?> e) || !(actual instanceof List<?> a) || e.isEmpty() || !(e.get(0) instanceof Map<?, ?> first)) {
            return actual;
        }
        return a.stream().map(x -> x instanceof Map<?, ?> m ? projection(m, first.keySet()) : x).toList();
    }

    private static Map<Object, Object> projection(Map<?, ?> m, java.util.Set<?> keys) {
        Map<Object, Object> out = new java.util.LinkedHashMap<>();
        for (Object k : keys) if (m.containsKey(k)) out.put(k, m.get(k));
        return out;
    }

    /** Where each dump is unpacked once for every test of this JVM: the largest holds 11,500 files, 12 s of file creation here. */
    private static final Map<Path, Path> UNPACKED = new java.util.HashMap<>();
    private static Path unpackedDir;

    /**
     * The sysfs dump in {@code tarball}, unpacked once per test JVM (removed as the JVM ends): the
     * directory to read it from. Tests only read it.
     */
    public static synchronized Path dump(Path tarball) throws Exception {
        Path root = UNPACKED.get(tarball);
        if (root != null) return root;
        if (unpackedDir == null) {
            Path d = Files.createTempDirectory("qv4j-fixtures-");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> remove(d)));
            unpackedDir = d;
        }
        Path dir = Files.createDirectory(unpackedDir.resolve(String.valueOf(UNPACKED.size())));
        Process p = new ProcessBuilder("tar", "xjf", tarball.toAbsolutePath().toString(), "-C", dir.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "tar failed: " + out);
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> inside = s.toList();
            assertEquals(1, inside.size(), "one directory expected in " + tarball);
            root = inside.get(0);
        }
        UNPACKED.put(tarball, root);
        return root;
    }

    private static void remove(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path f : all.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(f);
        } catch (IOException ignored) {
            // a temporary directory: the system's cleaning takes what is left
        }
    }
}
