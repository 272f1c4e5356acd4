package io.qv4j.agent.node;

import io.qv4j.agent.bind.NativeAffinity;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Who holds a lock on a lock file: asked file by file through the JNI library, the answer is the
 * one /proc/locks gives, and asking never frees a lock of this process.
 */
class LockTableTest {

    @BeforeAll
    static void theLibraryIsLoaded() {
        assertNotNull(NativeAffinity.load(), "the JNI library loads on Linux amd64 and aarch64");
    }

    private static final long ME = LockTable.ownPid();

    /** Both ways of asking, which must agree: by probe, and from /proc/locks. */
    private static long[] holders(Path f) {
        return new long[] {new LockTable.Look().holder(f), new LockTable.Look(false).holder(f)};
    }

    @Test
    void nobodyThisJvmAndAnotherProcessAreSeenAsProcLocksSeesThem(@TempDir Path tmp) throws Exception {
        Path f = Files.writeString(tmp.resolve("pu-1.lock"), "");
        assertEquals(LockTable.NONE, holders(f)[0]);
        assertEquals(LockTable.NONE, holders(f)[1]);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            assertNotNull(ch.tryLock());
            assertEquals(ME, holders(f)[0], "this JVM's own lock");
            assertEquals(ME, holders(f)[1]);
        }
        assertEquals(LockTable.NONE, holders(f)[0], "given back");
        Process other = lockedByAnotherProcess(f);
        try {
            assertEquals(other.pid(), holders(f)[0], "another process's lock, with its pid");
            assertEquals(other.pid(), holders(f)[1]);
        } finally {
            other.getOutputStream().close();
            other.waitFor();
        }
        assertEquals(LockTable.NONE, holders(f)[0], "gone with the process");
    }

    @Test
    void askingAboutAFileThisJvmLocksNeverFreesTheLock(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("cpu-3.lock");
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            assertNotNull(ch.tryLock());
            for (int i = 0; i < 3; i++) assertEquals(ME, new LockTable.Look().holder(f));
            assertEquals(ME, new LockTable.Look(false).holder(f), "still held: the descriptor that asked was not closed");
        }
    }

    @Test
    void aFileReplacedAtItsPathIsAskedAboutAfreshAndNoPlainFileIsNobodys(@TempDir Path tmp) throws Exception {
        Path f = Files.writeString(tmp.resolve("pu-2.lock"), "");
        assertEquals(LockTable.NONE, new LockTable.Look().holder(f));
        Files.delete(f); // a cleaner, then another JVM makes and locks a new file there
        Process other = lockedByAnotherProcess(f);
        try {
            assertEquals(other.pid(), new LockTable.Look().holder(f), "the file there now");
        } finally {
            other.getOutputStream().close();
            other.waitFor();
        }
        Files.delete(f);
        Path target = Files.writeString(tmp.resolve("target"), "");
        try (FileChannel ch = FileChannel.open(target, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            assertNotNull(ch.tryLock());
            Files.createSymbolicLink(f, target);
            assertEquals(LockTable.NONE, new LockTable.Look().holder(f), "a link is never followed");
        }
        assertEquals(LockTable.NONE, new LockTable.Look().holder(tmp.resolve("pu-9.lock")), "no file");
        Path fifo = tmp.resolve("pu-4.lock");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        assertEquals(LockTable.NONE, new LockTable.Look().holder(fifo), "a FIFO is neither opened nor waited on");
    }

    @Test
    void theProbeOfAReplacedFileIsClosedOnceDeletedAndKeptWhileLinkedElsewhereWithThisJvmsLockOnIt(@TempDir Path tmp) throws Exception {
        Path f = Files.writeString(tmp.resolve("cpu-5.lock"), "");
        assertEquals(LockTable.NONE, new LockTable.Look().holder(f));
        Files.delete(f); // another JVM released its OpenHFT file: deleted, then made again at its next claim
        Files.writeString(f, "");
        assertEquals(LockTable.NONE, new LockTable.Look().holder(f));
        assertEquals(0, descriptorsOn(f + " (deleted)"), "the probe of the deleted file is closed");
        assertEquals(1, descriptorsOn(f.toString()), "one probe, of the file there now");
        Path moved = tmp.resolve("cpu-5.old");
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            assertNotNull(ch.tryLock());
            Files.move(f, moved); // the locked file still linked, under another name
            Files.writeString(f, "");
            assertEquals(LockTable.NONE, new LockTable.Look().holder(f));
            assertEquals(ME, new LockTable.Look().holder(moved), "this JVM's lock on the file moved away stays");
        }
    }

    /** How many of this process's descriptors name {@code target}. */
    private static int descriptorsOn(String target) throws Exception {
        int n = 0;
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    if (Files.readSymbolicLink(fd).toString().equals(target)) n++;
                } catch (java.io.IOException closed) {
                    // the listing's own descriptor, or one closed meanwhile
                }
            }
        }
        return n;
    }

    /**
     * A forked {@link io.qv4j.testapps.LockFileApp} holding an exclusive lock on {@code f} (made if
     * missing) until its input is closed.
     */
    static Process lockedByAnotherProcess(Path f) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process holder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "io.qv4j.testapps.LockFileApp", f.toString())
                .redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream()));
        String line;
        do {
            line = out.readLine(); // past any line the JVM prints first (JAVA_TOOL_OPTIONS)
        } while (line != null && !line.equals("locked"));
        assertTrue("locked".equals(line), "the other process took its lock");
        return holder;
    }
}
