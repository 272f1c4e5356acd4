package io.qv4j.agent.cli.plan;

import io.qv4j.agent.cli.Main;
import io.qv4j.agent.report.JsonReader;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code plan} on the hybrid laptop of the fixtures (6 P-cores of 2 PUs = PUs 0-11, 8 E-cores = PUs
 * 12-19), read from its sysfs dump and from its hwloc XML: the kind rules of DESIGN.md §4.5.
 */
class HybridPlanTest {

    private static final String LAPTOP = "20em64t-hybrid-1p6c2t+2ca4co1t";

    /** The input flags for the laptop: {@code --fsroot DIR} for the dump, {@code --input FILE} for the XML. */
    private static List<String> laptop(String source) throws Exception {
        Path fixtures = TopologyFixtureTest.fixtures();
        if (source.equals("xml")) return List.of("--input", fixtures.resolve("xml/" + LAPTOP + ".xml").toString());
        return List.of("--fsroot", TopologyFixtureTest.dump(fixtures.resolve("sysfs/" + LAPTOP + ".tar.bz2")).toString());
    }

    /** Each task's cpus, as {@code plan --format json} prints them. */
    private static List<String> plan(List<String> input, String... flags) {
        List<String> argv = new ArrayList<>(List.of("plan", "--format", "json"));
        argv.addAll(input);
        argv.addAll(List.of(flags));
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int code = Main.run(argv.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        List<String> cpus = new ArrayList<>();
        for (Object t : (List<?>) ((Map<?, ?>) JsonReader.parse(out.toString(StandardCharsets.UTF_8))).get("tasks")) cpus.add((String) ((Map<?, ?>) t).get("cpus"));
        return cpus;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sysfs", "xml"})
    void aPoolOfFourGoesOnThePerformanceCores(String source) throws Exception {
        assertEquals(List.of("0-1", "2-3", "6-7", "8-9"), plan(laptop(source), "--split-at", "core", "--tasks", "4"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sysfs", "xml"})
    void kindEfficiencyPutsItOnTheEfficiencyCores(String source) throws Exception {
        assertEquals(List.of("12", "14", "16", "18"), plan(laptop(source), "--split-at", "core", "--kind", "efficiency", "--tasks", "4"));
        assertEquals(List.of("12", "14", "16", "18"), plan(laptop(source), "--options", "split-at=core,kind=0", "--tasks", "4"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sysfs", "xml"})
    void aPoolOfFourteenHasTasksZeroToFiveOnPerformanceCoresAndTheRestOnEfficiencyCores(String source) throws Exception {
        List<String> cpus = plan(laptop(source), "--split-at", "core", "--tasks", "14");
        assertEquals(List.of("0-1", "2-3", "4-5", "6-7", "8-9", "10-11"), cpus.subList(0, 6));
        assertEquals(List.of("12", "13", "14", "15", "16", "17", "18", "19"), cpus.subList(6, 14));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sysfs", "xml"})
    void kindAnyIsTheSplitThatIgnoresKinds(String source) throws Exception {
        assertEquals(List.of("0-1", "6-7", "12", "16"), plan(laptop(source), "--split-at", "core", "--kind", "any", "--tasks", "4"));
    }

    /** Three kinds (2, 4 and 6 cores, efficiency 2 the fastest): a pool of 4 takes the fastest kind's 2 cores, then 2 of the next. */
    @Test
    void onThreeKindsAPoolFillsTheFastestKindFirst() throws Exception {
        String xml = TopologyFixtureTest.fixtures().resolve("xml/24em64t-2n6c2t-pci-3kinds.xml").toString();
        List<String> cpus = plan(List.of("--input", xml), "--split-at", "core", "--tasks", "4");
        assertEquals(List.of("0,12", "1,13"), cpus.subList(0, 2));
        for (String c : cpus.subList(2, 4)) assertTrue(List.of("2,14", "4,16", "3,15", "5,17").contains(c), cpus.toString());
        assertEquals(List.of("6,18", "7,19"), plan(List.of("--input", xml), "--split-at", "core", "--kind", "efficiency", "--tasks", "2"));
    }

    @Test
    void aBadKindIsOneUsageLineWithTheAllowedWords() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"plan", "--input", "core:2", "--kind", "purple", "--tasks", "2"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, code);
        assertEquals("qv: plan: --kind 'purple' is not auto, performance, efficiency, any, or a CPU kind's efficiency rank 0, 1, ...\n", err.toString(StandardCharsets.UTF_8));
    }
}
