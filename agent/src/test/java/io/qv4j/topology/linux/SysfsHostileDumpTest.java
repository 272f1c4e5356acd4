package io.qv4j.topology.linux;

import io.qv4j.topology.Topology;
import io.qv4j.topology.TopologyException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Dumps are user input: special files, links out, loops and huge files end quickly, as missing or one message naming the file. */
class SysfsHostileDumpTest {

    private static final Duration QUICK = Duration.ofSeconds(5);

    @TempDir
    Path root;

    /** Two PUs, one core each; PU 0's {@code cpu_capacity} is 1024, PU 1's is left to the test. */
    private Path twoPus() throws IOException {
        write("sys/devices/system/cpu/online", "0-1");
        for (int pu = 0; pu < 2; pu++) {
            String cpu = "sys/devices/system/cpu/cpu" + pu + "/";
            write(cpu + "topology/physical_package_id", "0");
            write(cpu + "topology/core_id", String.valueOf(pu));
            write(cpu + "topology/thread_siblings_list", String.valueOf(pu));
            write(cpu + "topology/core_siblings_list", "0-1");
        }
        write("sys/devices/system/cpu/cpu0/cpu_capacity", "1024");
        return root.resolve("sys/devices/system/cpu/cpu1/cpu_capacity");
    }

    private TopologyException refused(Path file) {
        TopologyException e = assertTimeoutPreemptively(QUICK, () -> assertThrows(TopologyException.class, () -> SysfsReader.read(root)));
        assertTrue(e.getMessage().startsWith(file.toString() + ": "), e.getMessage());
        assertTrue(e.getMessage().length() < 200 && !e.getMessage().contains("\n"), e.getMessage());
        return e;
    }

    /** Read as {@code without}, the dump before PU 1's {@code cpu_capacity} was planted. */
    private void readAsMissing(Topology without) {
        Topology t = assertTimeoutPreemptively(QUICK, () -> SysfsReader.read(root));
        assertEquals(without.cpuKinds().toString(), t.cpuKinds().toString());
        assertEquals(without.pus().toString(), t.pus().toString());
    }

    @Test
    void aFifoIsRefusedWithoutOpeningIt() throws Exception {
        Path file = twoPus();
        Process p = new ProcessBuilder("mkfifo", file.toString()).start();
        assertEquals(0, p.waitFor());
        assertTrue(refused(file).getMessage().contains("not a regular file"));
    }

    @Test
    void aDirectoryIsRefusedAsNotARegularFile() throws Exception {
        Path file = twoPus();
        Files.createDirectories(file);
        assertTrue(refused(file).getMessage().contains("not a regular file but a directory"));
    }

    @Test
    void linksToDevZeroResolveInsideTheDumpWhereThereIsNone() throws Exception {
        Path file = twoPus();
        Topology without = SysfsReader.read(root);
        Files.createSymbolicLink(file, Path.of("/dev/zero"));
        readAsMissing(without);
        Files.delete(file);
        Files.createSymbolicLink(file, file.getParent().relativize(Path.of("/dev/zero"))); // ../../.. out of the dump
        readAsMissing(without);
    }

    @Test
    void aLinkLoopEndsAsMissing() throws Exception {
        Path file = twoPus();
        Topology without = SysfsReader.read(root);
        Files.createSymbolicLink(file, Path.of("loop"));
        Files.createSymbolicLink(file.resolveSibling("loop"), Path.of("cpu_capacity"));
        readAsMissing(without);
    }

    @Test
    void aFileWhereADirectoryShouldBeMakesItsFilesMissing() throws Exception {
        twoPus();
        Topology without = SysfsReader.read(root);
        write("sys/devices/system/cpu/cpu1/cpufreq", "not a directory"); // cpufreq/cpuinfo_max_freq is read below it
        readAsMissing(without);
    }

    @Test
    void aFileOverOneMebibyteIsRefusedNotReadWhole() throws Exception {
        Path file = twoPus();
        Files.write(file, "7".repeat(5 << 20).getBytes());
        assertTrue(refused(file).getMessage().contains("larger than"));
    }

    @Test
    void aCapacityTooLargeIsTheFilesErrorNotItsFirstDigits() throws Exception {
        Path file = twoPus();
        write(root.relativize(file).toString(), "9223372036854775808"); // 2^63
        assertTrue(refused(file).getMessage().contains("too large"));
    }

    @Test
    void integerFilesTakeAsciiDigitsAndAMinusOnly() throws Exception {
        twoPus();
        Path file = root.resolve("sys/devices/system/cpu/cpu1/topology/core_id");
        for (String bad : new String[] {"+1", "1_000", "99999999999", "--1", "-"}) {
            write(root.relativize(file).toString(), bad);
            assertTrue(refused(file).getMessage().contains("not a number"), bad);
        }
        write(root.relativize(file).toString(), "-1");
        assertEquals(2, SysfsReader.read(root).pus().size()); // -1, the kernel's unknown id, is a number
    }

    private void write(String rel, String content) throws IOException {
        Path p = root.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
    }
}
