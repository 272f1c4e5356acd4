package io.qv4j.agent.cli;

import io.qv4j.agent.report.JsonReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command line's contract for bad input: one line naming the input and the problem, exit 2, no trace. */
public class MainTest {

    public record Run(int code, String out, String err) {
    }

    public static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    public static void assertOneLineError(Run r, String... named) {
        assertEquals(2, r.code(), r.err());
        assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
        assertTrue(r.err().startsWith("qv: "), r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
        for (String n : named) assertTrue(r.err().contains(n), "names '" + n + "': " + r.err());
        assertEquals("", r.out());
    }

    @Test
    void everyCommandsHelpGivesItsOptionsAndAnExampleAndEndsZero() {
        for (String c : new String[] {"topology", "plan", "partition", "status", "attach", "compare"}) {
            for (String flag : new String[] {"--help", "-h"}) {
                Run r = run(c, flag);
                assertEquals(0, r.code(), c + " " + flag + ": " + r.err());
                assertTrue(r.out().startsWith("usage: java -jar qv-agent.jar " + c), r.out());
                assertTrue(r.out().contains("\nexample: java -jar qv-agent.jar " + c + " "), r.out());
                assertEquals("", r.err());
            }
        }
        assertEquals(0, run("help").code());
        assertTrue(run("help").out().contains("COMMAND --help"));
    }

    @Test
    void versionPrintsTheBuildsVersion() {
        Run r = run("--version");
        assertEquals(0, r.code());
        assertTrue(r.out().matches("qv4j \\d+\\.\\d+\\.\\d+\\S*\n"), r.out());
    }

    @Test
    void missingFileIsNamed(@TempDir Path dir) {
        String f = dir.resolve("nope.xml").toString();
        assertOneLineError(run("topology", "--input", f), f, "no such file");
    }

    @Test
    void fileThatIsNotXmlIsNamed(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("notes.txt"), "hello, not a topology\n");
        assertOneLineError(run("topology", "--input", f.toString()), f.toString(), "not XML");
    }

    @Test
    void truncatedXmlIsNamedWithItsLine(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("cut.xml"),
                "<?xml version=\"1.0\"?>\n<topology version=\"2.0\">\n  <object type=\"Machine\" os_index=\"0\" cpuset=\"0x3\">\n");
        assertOneLineError(run("topology", "--input", f.toString()), f.toString(), "line");
    }

    @Test
    void xmlThatIsNotHwlocIsNamed(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("pom.xml"), "<project><modelVersion>4.0.0</modelVersion></project>\n");
        assertOneLineError(run("topology", "--input", f.toString()), f.toString(), "<project>");
    }

    @Test
    void fsrootWithoutCpuDirectoryIsNamed(@TempDir Path dir) {
        assertOneLineError(run("topology", "--fsroot", dir.toString()), dir.toString(), "sys/devices/system/cpu");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "'package:2 bogus:3', bogus:3",
            "'package:2 pu:0', pu:0",
            "'core:two', core:two",
            "'core:4 package:2', package:2",
    })
    void badSyntheticSpecNamesTheWord(String spec, String word) {
        assertOneLineError(run("topology", "--input", spec), word);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "'topology --format yaml', yaml",
            "'topology --fsroot', --fsroot",
            "'topology --input a --input b', twice",
            "'topology --fsroot /x --input package:1', not both",
            "'frobnicate', frobnicate",
    })
    void badArgumentsNameTheArgument(String line, String named) {
        assertOneLineError(run(line.split(" ")), named);
    }

    @Test
    void debugAddsTheStackTrace() {
        Run r = run("topology", "--input", "pu:0", "--debug");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("\tat "), r.err());
    }

    @Test
    void syntheticSpecJsonHasTheStatedCounts() {
        Run r = run("topology", "--input", "package:2 numa:2 l3:1 core:8 pu:2 gpu:1 nic:1", "--format", "json");
        assertEquals(0, r.code(), r.err());
        java.util.Map<?, ?> json = (java.util.Map<?, ?>) JsonReader.parse(r.out());
        assertEquals("0-63", json.get("online"));
        assertEquals(2, ((java.util.List<?>) json.get("packages")).size());
        assertEquals(4, ((java.util.List<?>) json.get("numa")).size());
        assertEquals(32, ((java.util.List<?>) json.get("cores")).size());
        assertEquals(4, ((java.util.List<?>) json.get("gpus")).size());
        assertEquals(4, ((java.util.List<?>) json.get("nics")).size());
    }
}
