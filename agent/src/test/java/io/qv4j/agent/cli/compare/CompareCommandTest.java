package io.qv4j.agent.cli.compare;

import io.qv4j.agent.cli.MainTest;
import io.qv4j.agent.report.JsonReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code compare}'s arguments, its measurement helpers and its output, without running a command. */
class CompareCommandTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
            "no --; --runs 3 java -version; after --",
            "an empty command; --runs 3 --; empty",
            "a blank command; --runs 3 -- '' x; empty",
            "a command not on PATH; -- qv-no-such-command-here x; command not found: qv-no-such-command-here",
            "a path that is no executable file; -- /etc; command not found: /etc",
            "a regex that does not compile; --metric 'ops=([0-9]+' -- true; does not compile",
            "a metric without a regex; --metric ops -- true; NAME=REGEX",
            "a metric named like a figure; --metric 'wall=([0-9]+)' -- true; taken",
            "a metric given twice; --metric 'a=x' --metric 'a=y' -- true; given twice",
            "runs not a number; --runs five -- true; --runs",
            "runs zero; --runs 0 -- true; --runs",
            "runs in other digits; --runs ٣ -- true; --runs",
            "timeout negative; --timeout -1 -- true; --timeout",
            "an unknown option; --rounds 3 -- true; unknown argument '--rounds'",
            "a bad format; --format csv -- true; csv",
            "options empty; --options '' -- true; --options is empty",
            "options the agent refuses; --options split-at=socket -- true; split-at",
            "the same options twice; --options color=0 --options color=0 -- true; given twice",
            "--from with a command; --from x.json -- true; --from",
    })
    void badInputIsOneLineAndExitTwo(String what, String args, String named) {
        List<String> argv = new ArrayList<>(List.of("compare"));
        argv.addAll(words(args));
        MainTest.assertOneLineError(MainTest.run(argv.toArray(String[]::new)), named);
    }

    /** Splits at spaces, keeping single-quoted words whole ('' is an empty word). */
    private static List<String> words(String s) {
        List<String> out = new ArrayList<>();
        var m = Pattern.compile("'([^']*)'|(\\S+)").matcher(s);
        while (m.find()) out.add(m.group(1) != null ? m.group(1) : m.group(2));
        return out;
    }

    @Test
    void aSavedResultThatIsNotOneIsOneLine(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("r.json"), "{\"runs\": [{\"arm\": \"x\"}]}");
        MainTest.assertOneLineError(MainTest.run("compare", "--from", f.toString()), "not a saved compare result");
        MainTest.assertOneLineError(MainTest.run("compare", "--from", dir.resolve("none.json").toString()), "cannot read");
    }

    @Test
    void helpAndDebugAfterTheDashesAreTheCommands() {
        MainTest.Run help = MainTest.run("compare", "--help");
        assertEquals(0, help.code());
        assertTrue(help.out().contains("--metric"), help.out());
        // --help after -- belongs to COMMAND: compare itself goes on (and finds no such command)
        MainTest.assertOneLineError(MainTest.run("compare", "--", "qv-no-such-command-here", "--help", "--debug"), "command not found");
    }

    @Test
    void metricsTakeADirectionHigherByDefault() {
        Comparison.Metric m = CompareCommand.metric("ops=([0-9.]+) ops/s");
        assertEquals("ops", m.name());
        assertFalse(m.lowerIsBetter());
        assertEquals("([0-9.]+) ops/s", m.regex().pattern());
        assertTrue(CompareCommand.metric("p99=p99=(\\d+):lower").lowerIsBetter());
        assertFalse(CompareCommand.metric("t=(\\d+) t:higher").lowerIsBetter());
        assertEquals("a=b=(\\d+)", "a=" + CompareCommand.metric("a=b=(\\d+)").regex().pattern(), "the first = ends the name");
    }

    @Test
    void aMetricIsGroupOneOrTheWholeMatchAndMustBeANumber() {
        assertEquals(12.5, CompareRun.number(Pattern.compile("rate=([0-9.]+)"), "rate=12.5 ops"));
        assertEquals(42.0, CompareRun.number(Pattern.compile("\\d+"), "took 42 ms"));
        assertNull(CompareRun.number(Pattern.compile("rate=(\\S+)"), "rate=fast"));
        assertNull(CompareRun.number(Pattern.compile("rate=(\\S+)"), "nothing here"));
    }

    @Test
    void cpuTimeIsTheChildrensLineOfTimesInDashOrBashForm() {
        assertEquals(3.75, CompareRun.childrenSeconds("0m0.001000s 0m0.002000s\n0m3.250000s 0m0.500000s\n"));
        assertEquals(62.5, CompareRun.childrenSeconds("0m0.002s 0m0.000s\n1m2.000s 0m0.500s\n"));
        assertNull(CompareRun.childrenSeconds("0m0.002s 0m0.000s\n"));
        assertNull(CompareRun.childrenSeconds(""));
    }

    @Test
    void theAgentJoinsTheUsersJavaToolOptionsWithARunsOwnClaimsAndReports() {
        Path dir = Path.of("/tmp/run 1");
        String j = CompareRun.javaToolOptions("-Xmx1g", "/opt/qv-agent.jar", "split-at=l3", Path.of("/tmp/r"));
        assertEquals("-Xmx1g -javaagent:/opt/qv-agent.jar=split-at=l3,claims-dir=/tmp/r/claims,report=/tmp/r/reports/qv-%p.json", j);
        assertEquals("-javaagent:/opt/qv-agent.jar=claims-dir=/tmp/r/claims,report=/tmp/r/reports/qv-%p.json",
                CompareRun.javaToolOptions(null, "/opt/qv-agent.jar", "", Path.of("/tmp/r")));
        assertEquals("-javaagent:/opt/qv-agent.jar=claims-dir=/c,report=/tmp/r/reports/qv-%p.json",
                CompareRun.javaToolOptions(" ", "/opt/qv-agent.jar", "claims-dir=/c", Path.of("/tmp/r")), "the user's claims directory");
        assertEquals("\"-javaagent:/opt/qv-agent.jar=claims-dir=/tmp/run 1/claims,report=/tmp/run 1/reports/qv-%p.json\"",
                CompareRun.javaToolOptions(null, "/opt/qv-agent.jar", "", dir), "quoted: the JVM splits at spaces");
    }

    @Test
    void commandsAreFoundAsTheShellFindsThem(@TempDir Path dir) throws Exception {
        Path script = Files.writeString(dir.resolve("run.sh"), "#!/bin/sh\n");
        assertNull(CompareRun.executable("run.sh", dir.toString()), "not executable");
        assertTrue(script.toFile().setExecutable(true));
        assertEquals(script, CompareRun.executable("run.sh", "/nonexistent:" + dir));
        assertEquals(script, CompareRun.executable(script.toString(), ""));
        assertNull(CompareRun.executable(dir.toString(), ""), "a directory");
        assertTrue(CompareRun.executable("sh", System.getenv("PATH")) != null);
    }

    /** Three arms, three rounds after a warm-up; the oversubscribed arm slower, one run failed, one timed out. */
    static Comparison sample() {
        List<Comparison.Arm> arms = List.of(new Comparison.Arm("no agent", null), new Comparison.Arm("defaults", ""),
                new Comparison.Arm("color=0", "color=0"));
        List<Comparison.Metric> metrics = List.of(new Comparison.Metric("ops", Pattern.compile("ops=(\\d+)"), false));
        double[][] wall = {{1.0, 1.1, 1.2, 1.05}, {1.02, 1.15, 1.08, 1.1}, {1.9, 2.0, 2.1, 1.95}};
        List<Comparison.Run> runs = new ArrayList<>();
        for (int r = 0; r <= 3; r++) {
            for (int a : CompareStats.order(r, 3)) {
                List<Long> pinned = a == 0 ? null : List.of(2L);
                if (r == 2 && a == 1) runs.add(new Comparison.Run(r, a, "exit", 1, 0.4, 0.3, Map.of(), pinned, "Exception in thread \"main\""));
                else runs.add(new Comparison.Run(r, a, "ok", 0, wall[a][r], wall[a][r] * 2, Map.of("ops", 1000 / wall[a][r]), pinned, null));
            }
        }
        runs.add(new Comparison.Run(3, 1, "timeout", -1, 30, null, Map.of(), null, null));
        return new Comparison(List.of("java", "-jar", "app.jar"), arms, metrics, 3, runs, false);
    }

    @Test
    void textGivesMedianRangeRatioAndVerdictPerArmAndFigure() {
        String t = sample().text();
        assertTrue(t.matches("(?s).*no agent +1\\.1 +1\\.05 +1\\.2\n.*"), t);
        assertTrue(t.matches("(?s).*color=0 +2 +1\\.95 +2\\.1 +1\\.818 +worse\n.*"), t);
        assertTrue(t.matches("(?s).*defaults +1\\.125 +1\\.1 +1\\.15 +1\\.023 +not resolved\n.*"), "two runs counted: not resolved\n" + t);
        assertTrue(t.contains("excluded: round 2, defaults: exit 1 (Exception in thread \"main\")"), t);
        assertTrue(t.contains("excluded: round 3, defaults: timed out after 30 s, process tree killed"), t);
        assertTrue(t.matches("(?s).*defaults +2 of 4\n.*"), t);
    }

    @Test
    void jsonHoldsTheSameNumbersAndReadsBackToTheSameText() {
        Comparison c = sample();
        Map<?, ?> j = (Map<?, ?>) JsonReader.parse(c.jsonText());
        Map<?, ?> wall = (Map<?, ?>) ((List<?>) j.get("figures")).get(0);
        assertEquals("wall", wall.get("name"));
        Map<?, ?> worse = (Map<?, ?>) ((List<?>) wall.get("arms")).get(2);
        assertEquals(2.0, ((Number) worse.get("median")).doubleValue());
        assertEquals(1.818, worse.get("ratio"));
        assertEquals("worse", worse.get("verdict"));
        assertEquals(c.text(), Comparison.fromJson(j).text());
        assertEquals(c.json(), Comparison.fromJson(JsonReader.parse(c.jsonText())).json());
    }

    @Test
    void svgDrawsEachJudgedFigureWithTheArmsVerdicts() throws Exception {
        String svg = CompareSvg.draw(sample());
        javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new java.io.ByteArrayInputStream(svg.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertTrue(svg.contains("wall s (lower is better)"), svg);
        assertTrue(svg.contains("ops (higher is better)"), svg);
        assertTrue(svg.contains("class=\"worse\">worse</text>"), svg);
        assertTrue(svg.contains("C  color=0"), svg);
        assertFalse(svg.contains("pinned"), "no panel for the pinned threads");
    }
}
