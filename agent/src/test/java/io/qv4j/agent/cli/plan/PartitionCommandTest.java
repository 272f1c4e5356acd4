package io.qv4j.agent.cli.plan;

import io.qv4j.agent.cli.MainTest.Run;
import io.qv4j.agent.report.JsonReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static io.qv4j.agent.cli.MainTest.assertOneLineError;
import static io.qv4j.agent.cli.MainTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code partition}: the seed example, the one-line JSON, files, and one-line errors for bad input. */
class PartitionCommandTest {

    private static final String[] SEED = "1 1 2 1 2 2 2 1 1 1 1 1 1 2 2 1".split(" ");

    private static String[] args(String head, String... weights) {
        List<String> a = new java.util.ArrayList<>(List.of(head.split(" ")));
        a.addAll(List.of(weights));
        return a.toArray(String[]::new);
    }

    @Test
    void seedExampleOrbJsonIsOneLineWithExclusiveEnds() {
        Run r = run(args("partition --parts 4 --method orb --format json", SEED));
        assertEquals(0, r.code(), r.err());
        assertEquals("{\"parts\":[{\"from\":0,\"to\":4,\"load\":5},{\"from\":4,\"to\":7,\"load\":6},"
                + "{\"from\":7,\"to\":13,\"load\":6},{\"from\":13,\"to\":16,\"load\":5}],\"max\":6}\n", r.out());
        assertEquals("", r.err());
    }

    @Test
    void jsonParsesBackWithPartsAndMax() {
        Run r = run("partition", "--parts", "3", "--format=json", "2", "8", "9");
        Map<?, ?> json = (Map<?, ?>) JsonReader.parse(r.out());
        assertEquals(9L, ((Number) json.get("max")).longValue());
        List<?> parts = (List<?>) json.get("parts");
        assertEquals(3, parts.size());
        assertEquals(Map.of("from", 0L, "to", 1L, "load", 2L), longs((Map<?, ?>) parts.get(0)));
    }

    private static Map<String, Long> longs(Map<?, ?> m) {
        Map<String, Long> out = new java.util.HashMap<>();
        m.forEach((k, v) -> out.put((String) k, ((Number) v).longValue()));
        return out;
    }

    @Test
    void orbAndExactDifferOnTwoEightNine() {
        assertTrue(run("partition", "--parts", "3", "--format", "json", "2", "8", "9").out().endsWith("\"max\":9}\n"));
        assertTrue(run("partition", "--parts", "3", "--method", "orb", "--format", "json", "2", "8", "9").out().endsWith("\"max\":10}\n"));
    }

    @Test
    void textIsATableWithTheHeaviestPart() {
        Run r = run(args("partition --parts 4", SEED));
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals(6, lines.size(), r.out());
        assertEquals(List.of("part", "from", "to", "size", "load"), List.of(lines.get(0).trim().split("\\s+")));
        assertEquals(List.of("0", "0", "4", "4", "5"), List.of(lines.get(1).trim().split("\\s+")));
        assertTrue(lines.get(5).startsWith("exact: max 6, total 22"), lines.get(5));
    }

    @Test
    void fileWithCommentsAndBlankLinesGivesTheSameParts(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("w.txt"), "# cost per row\n" + String.join("\n", SEED).replaceFirst("\n", "  # two\n\n") + "\n\n");
        Run fromFile = run("partition", "--parts", "4", "--format", "json", "--file", f.toString());
        assertEquals(0, fromFile.code(), fromFile.err());
        assertEquals(run(args("partition --parts 4 --format json", SEED)).out(), fromFile.out());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "'partition --parts 4', no weights",
            "'partition --parts 2 1 -3 4', weight [1] '-3' is negative",
            "'partition --parts 2 1 2 x', weight [2] 'x' is not a whole number",
            "'partition --parts 2 1.5', '1.5'",
            "'partition --parts 2 99999999999999999999', too large",
            "'partition --parts 0 1 2', --parts '0'",
            "'partition --parts -2 1 2', --parts '-2'",
            "'partition 1 2', --parts is required",
            "'partition --parts 2 --method best 1 2', best",
            "'partition --parts 2 --format yaml 1', yaml",
            "'partition --parts 2 --size 3 1', --size",
            "'partition --parts 2 4611686018427387904 4611686018427387904', overflow",
    })
    void badInputIsOneLineNamingIt(String line, String named) {
        assertOneLineError(run(line.split(" ")), named);
    }

    @Test
    void unreadableFileIsNamed(@TempDir Path dir) {
        String f = dir.resolve("nope.txt").toString();
        assertOneLineError(run("partition", "--parts", "2", "--file", f), f, "no such file");
        assertOneLineError(run("partition", "--parts", "2", "--file", dir.toString()), dir.toString(), "directory");
    }

    @Test
    void fileAndWeightsTogetherIsAnError(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("w.txt"), "1\n2\n");
        assertOneLineError(run("partition", "--parts", "2", "--file", f.toString(), "3"), "not both");
    }

    @Test
    void badLineInFileIsNamedWithItsLineNumber(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("w.txt"), "# header\n1\n\n-7\n");
        assertOneLineError(run("partition", "--parts", "2", "--file", f.toString()), f + ":4", "'-7' is negative");
        Path empty = Files.writeString(dir.resolve("empty.txt"), "# nothing\n\n");
        assertOneLineError(run("partition", "--parts", "2", "--file", empty.toString()), "no weights in " + empty);
    }

    @Test
    void usageListsPartition() {
        assertTrue(run("help").out().contains("partition --parts P"));
    }
}
