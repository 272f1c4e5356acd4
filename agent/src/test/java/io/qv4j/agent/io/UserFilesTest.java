package io.qv4j.agent.io;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class UserFilesTest {

    @Test
    void theOwnUidIsTheEffectiveUidTheKernelGivesThisProcessesFiles(@TempDir Path dir) throws Exception {
        Path made = Files.createFile(dir.resolve("mine"));
        assertEquals(Files.getAttribute(made, "unix:uid"), UserFiles.ownUid());
        assertEquals(UserFiles.ownUid(), UserFiles.ownUid());
    }

    @Test
    void procReadsAFileWhoseSizeTheKernelDoesNotSayAndNullForOneThatIsNotThere() {
        String status = new String(UserFiles.proc("/proc/self/status"), StandardCharsets.ISO_8859_1);
        assertTrue(status.contains("\nUid:"), status);
        assertNull(UserFiles.proc("/proc/self/no-such-file"));
    }

    private static final byte[] DATA = "{\"report\": 1}\n".getBytes(StandardCharsets.UTF_8);
    private static final Duration QUICK = Duration.ofSeconds(1); // a FIFO without a writer would block forever

    @TempDir
    Path dir;

    // ---- reading -----------------------------------------------------------------------------

    @Test
    void readsARegularFileAndOneThroughASymbolicLink() throws IOException {
        Path file = Files.write(dir.resolve("rules.conf"), DATA);
        Path link = Files.createSymbolicLink(dir.resolve("link.conf"), file);
        assertArrayEquals(DATA, UserFiles.read(file, DATA.length));
        assertArrayEquals(DATA, UserFiles.read(link, 1 << 20));
    }

    @Test
    void aFileOverTheLimitIsRefusedWithoutReadingIt() throws IOException {
        Path file = Files.write(dir.resolve("big.conf"), new byte[10_000]);
        IOException e = assertThrows(IOException.class, () -> UserFiles.read(file, 9_999));
        assertMessage(e, file, "larger than 9999 bytes");
    }

    @Test
    void fifosDirectlyOrThroughALinkAreRefusedWithoutBlocking() throws IOException {
        Path fifo = fifo("config.fifo");
        Path link = Files.createSymbolicLink(dir.resolve("config.conf"), fifo);
        for (Path p : List.of(fifo, link)) {
            IOException e = assertTimeoutPreemptively(QUICK, () -> assertThrows(IOException.class, () -> UserFiles.read(p, 1 << 20)));
            assertMessage(e, p, "a FIFO (named pipe), not a regular file");
        }
    }

    @Test
    void devicesAndDirectoriesAreRefused() {
        for (String dev : List.of("/dev/null", "/dev/zero")) {
            Path p = Path.of(dev);
            assumeTrue(Files.exists(p));
            IOException e = assertTimeoutPreemptively(QUICK, () -> assertThrows(IOException.class, () -> UserFiles.read(p, 1 << 20)));
            assertMessage(e, p, "a character device, not a regular file");
        }
        assertMessage(assertThrows(IOException.class, () -> UserFiles.read(dir, 1 << 20)), dir, "a directory, not a regular file");
    }

    @Test
    void missingFilesAndDanglingLinksAreSaidSo() throws IOException {
        Path missing = dir.resolve("no/such.conf");
        assertMessage(assertThrows(IOException.class, () -> UserFiles.read(missing, 10)), missing, "no such file");
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling.conf"), dir.resolve("gone"));
        assertMessage(assertThrows(IOException.class, () -> UserFiles.read(dangling, 10)), dangling, "a symbolic link to nothing");
    }

    // ---- writing -----------------------------------------------------------------------------

    @Test
    void writesANewFileOwnerOnlyAndLeavesNoTemporaryFile() throws IOException {
        Path report = dir.resolve("report.json");
        UserFiles.writeAtomically(report, DATA);
        assertArrayEquals(DATA, Files.readAllBytes(report));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(report)));
        assertEquals(List.of(report), entries());
    }

    @Test
    void replacesARegularFileKeepingItsPermissions() throws IOException {
        Path report = Files.write(dir.resolve("report.json"), "old, longer than the new content".getBytes(StandardCharsets.UTF_8));
        Files.setPosixFilePermissions(report, PosixFilePermissions.fromString("rw-r-----"));
        UserFiles.writeAtomically(report, DATA);
        assertArrayEquals(DATA, Files.readAllBytes(report));
        assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(report)));
        assertEquals(List.of(report), entries());
    }

    @Test
    void aSymbolicLinkAtTheTargetIsRefusedAndNeitherItNorWhatItPointsToChange() throws IOException {
        Path victim = Files.write(dir.resolve("victim"), "precious".getBytes(StandardCharsets.UTF_8));
        Path toFile = Files.createSymbolicLink(dir.resolve("report.json"), victim);
        Path dangling = Files.createSymbolicLink(dir.resolve("report2.json"), dir.resolve("would-be-created"));
        for (Path link : List.of(toFile, dangling)) {
            IOException e = assertThrows(IOException.class, () -> UserFiles.writeAtomically(link, DATA));
            assertMessage(e, link, "a symbolic link is there: not replaced");
            assertTrue(Files.isSymbolicLink(link));
        }
        assertEquals("precious", Files.readString(victim));
        assertFalse(Files.exists(dir.resolve("would-be-created"), LinkOption.NOFOLLOW_LINKS));
        assertEquals(List.of(toFile, dangling, victim), entries());
    }

    @Test
    void aLinkPlantedAtTheTemporaryNameIsNeverFollowedAndAnotherNameIsTaken() throws IOException {
        Path victim = Files.write(dir.resolve("victim"), "precious".getBytes(StandardCharsets.UTF_8));
        Path planted = Files.createSymbolicLink(dir.resolve(".report.json.guessed.tmp"), victim);
        Iterator<String> names = List.of("guessed", "fresh").iterator();
        Path report = dir.resolve("report.json");
        UserFiles.writeAtomically(report, DATA, names::next);
        assertArrayEquals(DATA, Files.readAllBytes(report));
        assertEquals("precious", Files.readString(victim));
        assertTrue(Files.isSymbolicLink(planted), "the planted link is left alone");
        assertEquals(List.of(planted, report, victim), entries());
    }

    @Test
    void aFifoADeviceOrADirectoryAtTheTargetIsRefusedAndLeftAsItIs() throws IOException {
        Path fifo = fifo("report.fifo");
        IOException e = assertTimeoutPreemptively(QUICK, () -> assertThrows(IOException.class, () -> UserFiles.writeAtomically(fifo, DATA)));
        assertMessage(e, fifo, "a FIFO (named pipe) is there: not replaced");
        assertEquals("p", type(fifo));

        Path devNull = Path.of("/dev/null");
        assumeTrue(Files.exists(devNull));
        assertMessage(assertThrows(IOException.class, () -> UserFiles.writeAtomically(devNull, DATA)), devNull,
                "a character device is there: not replaced");
        assertEquals("c", type(devNull));

        Path sub = Files.createDirectory(dir.resolve("report.json"));
        assertMessage(assertThrows(IOException.class, () -> UserFiles.writeAtomically(sub, DATA)), sub, "a directory is there");
        assertEquals(List.of(fifo, sub), entries());
    }

    @Test
    void aMissingDirectoryIsNotCreated() {
        Path report = dir.resolve("out/sub/report.json");
        IOException e = assertThrows(IOException.class, () -> UserFiles.writeAtomically(report, DATA));
        assertMessage(e, report, "does not exist (directories are not created)");
        assertFalse(Files.exists(dir.resolve("out")));
    }

    @Test
    void pathsWithDotOrDotDotComponentsAreRefused() throws IOException {
        Files.createDirectory(dir.resolve("sub"));
        for (Path p : List.of(dir.resolve("sub/../report.json"), dir.resolve("./report.json"), Path.of("../report.json"),
                dir.resolve("sub/.."), Path.of("/"))) {
            IOException e = assertThrows(IOException.class, () -> UserFiles.writeAtomically(p, DATA));
            assertTrue(e.getMessage().startsWith(p + ": "), e.getMessage());
        }
        assertEquals(List.of(dir.resolve("sub")), entries());
    }

    private static void assertMessage(IOException e, Path p, String part) {
        assertTrue(e.getMessage().startsWith(p + ": ") && e.getMessage().contains(part), e.getMessage());
    }

    private List<Path> entries() throws IOException {
        try (var s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }

    private Path fifo(String name) throws IOException {
        Path p = dir.resolve(name);
        try {
            Process mk = new ProcessBuilder("mkfifo", p.toString()).redirectErrorStream(true).start();
            assumeTrue(mk.waitFor(5, TimeUnit.SECONDS) && mk.exitValue() == 0, "mkfifo failed");
        } catch (IOException | InterruptedException e) {
            assumeTrue(false, "no mkfifo: " + e);
        }
        return p;
    }

    /** ls's type letter: "p" for a FIFO, "c" for a character device. */
    private static String type(Path p) throws IOException {
        int mode = (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        return switch (mode & 0170000) {
            case 0010000 -> "p";
            case 0020000 -> "c";
            default -> "?";
        };
    }
}
