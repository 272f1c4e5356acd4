package io.qv4j.agent.node;

import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Node-wide claims: one owner-only lock file per PU, never through a planted link. */
class ClaimsTest {

    @Test
    void claimingMakesOwnerOnlyLockFilesAndReleasingLetsGo(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("claims");
        Claims c = Claims.open(dir, true, tmp);
        assertTrue(c.takes());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
        assertEquals(CpuSet.empty(), c.claim(CpuSet.parse("0-2")));
        assertEquals(CpuSet.parse("0-2"), c.mine());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("pu-1.lock"))));
        c.release(CpuSet.parse("1"));
        assertEquals(CpuSet.parse("0,2"), c.mine());
        assertEquals(CpuSet.empty(), c.claim(CpuSet.parse("0-2")), "claiming again is idempotent");
        assertEquals(CpuSet.parse("0-2"), c.mine());
    }

    @Test
    void aPuAnotherHolderLockedIsReportedLost(@TempDir Path tmp) {
        Claims first = Claims.open(tmp.resolve("c"), true, tmp);
        Claims second = Claims.open(tmp.resolve("c"), true, tmp);
        first.claim(CpuSet.parse("3"));
        assertEquals(CpuSet.parse("3"), second.claim(CpuSet.parse("3-4")));
        assertEquals(CpuSet.parse("4"), second.mine());
    }

    @Test
    void observingTakesNothing(@TempDir Path tmp) {
        Claims c = Claims.open(tmp.resolve("c"), false, tmp);
        assertFalse(c.takes());
        assertEquals(CpuSet.empty(), c.claim(CpuSet.parse("0")));
        assertFalse(Files.exists(tmp.resolve("c").resolve("pu-0.lock")));
    }

    @Test
    void aClaimsDirectoryThatIsALinkOrOpenToOthersIsRefused(@TempDir Path tmp) throws Exception {
        Path real = Files.createDirectory(tmp.resolve("real"));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), real);
        Claims viaLink = Claims.open(link, true, tmp);
        assertFalse(viaLink.takes());
        assertNotNull(viaLink.refused());
        assertTrue(viaLink.refused().contains("symbolic link"), viaLink.refused());

        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertTrue(Claims.open(open, true, tmp).refused().contains("writable by group or others"));
    }

    @Test
    void aPlantedLinkAtALockFileIsNeverFollowed(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("c");
        Claims c = Claims.open(dir, true, tmp);
        Path victim = Files.writeString(tmp.resolve("victim"), "keep");
        Files.createSymbolicLink(dir.resolve("pu-5.lock"), victim);
        c.claim(CpuSet.parse("5"));
        assertEquals("keep", Files.readString(victim));
        assertTrue(Files.isSymbolicLink(dir.resolve("pu-5.lock")));
        assertFalse(c.mine().contains(5));
        assertFalse(Files.exists(dir.resolve("pu-5.lock"), LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(dir.resolve("pu-5.lock")));
    }

    // ---- OpenHFT's side: cpu-N.lock in java.io.tmpdir ------------------------------------------

    /** Whether a live process holds a lock on {@code f}, from /proc/locks (nothing opened). */
    static boolean locked(Path f) {
        String k = LockTable.key(f);
        return k != null && LockTable.liveLocks().containsKey(k);
    }

    /** A file's text read by another process: opening and closing it here would drop this process's POSIX locks on it. */
    static String catFile(Path f) throws Exception {
        Process p = new ProcessBuilder("cat", f.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        return out;
    }

    @Test
    void aClaimIsAlsoHeldOnOpenHftsSideAndReleasedWithIt(@TempDir Path tmp) throws Exception {
        Path hft = Files.createDirectory(tmp.resolve("javatmp"));
        Claims c = Claims.open(tmp.resolve("c"), true, hft);
        assertEquals(CpuSet.empty(), c.claim(CpuSet.parse("1-2")));
        assertEquals(CpuSet.parse("1-2"), c.openHftHeld());
        Path f = hft.resolve("cpu-1.lock");
        assertTrue(Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        assertTrue(locked(f), "an exclusive lock, visible in /proc/locks");
        assertEquals(String.valueOf(LockTable.ownPid()), catFile(f).split("\n")[0], "the pid first, as OpenHFT reads it");
        assertTrue(c.openHftSkipped().isEmpty());
        // its own others() does not count its own OpenHFT locks
        assertEquals(CpuSet.empty(), c.others(CpuSet.parse("0-3")));
        // another claimant on the same node sees both sides taken
        Claims other = Claims.open(tmp.resolve("c2"), true, hft);
        assertEquals(CpuSet.parse("1-2"), other.others(CpuSet.parse("0-3")));
        assertEquals(CpuSet.parse("2"), other.claim(CpuSet.parse("2-3")), "PU 2's OpenHFT file is held: lost");
        assertEquals(CpuSet.parse("3"), other.mine(), "the lost PU's own claim is given back");
        c.release(CpuSet.parse("1"));
        assertFalse(Files.exists(f, LinkOption.NOFOLLOW_LINKS), "deleted on release, as OpenHFT does");
        assertEquals(CpuSet.parse("2"), c.openHftHeld());
    }

    @Test
    void aClaimTakenOnAThreadWithAPendingInterruptIsWrittenOnOpenHftsSideAndTheInterruptIsKept(@TempDir Path tmp) throws Exception {
        // a worker plans on its own thread, which the application may have interrupted: the
        // interrupt closed the OpenHFT file's channel before the pid was written (seen: an empty file)
        Path hft = Files.createDirectory(tmp.resolve("javatmp"));
        Claims c = Claims.open(tmp.resolve("c"), true, hft);
        Thread.currentThread().interrupt();
        try {
            assertEquals(CpuSet.empty(), c.claim(CpuSet.parse("1")));
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is the application's: kept");
        } finally {
            Thread.interrupted();
        }
        Path f = hft.resolve("cpu-1.lock");
        assertTrue(locked(f), "an exclusive lock, visible in /proc/locks");
        assertEquals(String.valueOf(LockTable.ownPid()), catFile(f).split("\n")[0], "the pid first, as OpenHFT reads it");
    }

    @Test
    void anUnlockedStaleFileOfThisUserIsReusedNotTruncatedBeforeTheLock(@TempDir Path tmp) throws Exception {
        Path hft = Files.createDirectory(tmp.resolve("javatmp"));
        Path f = Files.writeString(hft.resolve("cpu-4.lock"), "99999\n2026.01.01 at 00:00:00 UTC\nmore text that is longer than ours\n");
        Claims c = Claims.open(tmp.resolve("c"), true, hft);
        assertEquals(CpuSet.empty(), c.claim(CpuSet.parse("4")));
        assertEquals(CpuSet.parse("4"), c.openHftHeld());
        assertTrue(locked(f));
        String text = catFile(f);
        assertTrue(text.startsWith(LockTable.ownPid() + "\n"), text);
        assertTrue(locked(f));
        c.release(CpuSet.parse("4"));
        assertFalse(Files.exists(f));
    }

    @Test
    void aLinkOrAnotherUsersFileIsSkippedForThatPuOnly(@TempDir Path tmp) throws Exception {
        Path hft = Files.createDirectory(tmp.resolve("javatmp"));
        Path victim = Files.writeString(tmp.resolve("victim"), "keep");
        Files.createSymbolicLink(hft.resolve("cpu-5.lock"), victim);
        Files.createDirectory(hft.resolve("cpu-6.lock"));
        Claims c = Claims.open(tmp.resolve("c"), true, hft);
        assertEquals(CpuSet.empty(), c.claim(CpuSet.parse("5-7")));
        assertEquals(CpuSet.parse("5-7"), c.mine(), "the qv4j claims hold");
        assertEquals(CpuSet.parse("7"), c.openHftHeld());
        assertEquals("keep", Files.readString(victim));
        assertTrue(Files.isSymbolicLink(hft.resolve("cpu-5.lock")));
        assertTrue(c.openHftSkipped().get(5).contains("symbolic link"), c.openHftSkipped().toString());
        assertTrue(c.openHftSkipped().get(6).contains("not a plain file"), c.openHftSkipped().toString());
        c.release(CpuSet.parse("5-7"));
        assertTrue(Files.isSymbolicLink(hft.resolve("cpu-5.lock")), "a link is never deleted");
        assertEquals("keep", Files.readString(victim));
    }

    @Test
    void anotherUsersFileIsNeitherOpenedNorChanged(@TempDir Path tmp) throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "needs root to chown a file to nobody");
        Path hft = Files.createDirectory(tmp.resolve("javatmp"));
        Path f = Files.writeString(hft.resolve("cpu-3.lock"), "12345\n");
        Process chown = new ProcessBuilder("chown", "nobody", f.toString()).inheritIO().start();
        Assumptions.assumeTrue(chown.waitFor() == 0, "chown nobody failed");
        Claims c = Claims.open(tmp.resolve("c"), true, hft);
        assertEquals(CpuSet.empty(), c.claim(CpuSet.parse("3")));
        assertEquals(CpuSet.parse("3"), c.mine());
        assertEquals(CpuSet.empty(), c.openHftHeld());
        assertTrue(c.openHftSkipped().get(3).contains("belongs to uid"), c.openHftSkipped().toString());
        assertEquals("12345\n", Files.readString(f));
        assertFalse(locked(f));
    }

    @Test
    void aFileThisJvmLocksIsStillNamedAndTheChannelThatAskedIsKeptSoTheLockStays(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("cpu-1.lock");
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            assertNotNull(ch.tryLock());
            FileChannel[] kept = new FileChannel[1];
            assertEquals(OpenHftLocks.OURS, OpenHftLocks.named(f, kept), "the path names the file locked");
            assertTrue(lockedHere(f), "the lock stays: the channel that asked was not closed");
            kept[0].close();
            assertFalse(lockedHere(f), "closing that channel would have freed it (POSIX locks belong to the process)");
        }
    }

    @Test
    void aFileNobodyLocksOrNoFileAtAllIsNotTheFileLocked(@TempDir Path tmp) throws Exception {
        // what the path names after OpenHFT deleted the file between our open and our lock
        Path f = Files.writeString(tmp.resolve("cpu-1.lock"), "");
        FileChannel[] kept = new FileChannel[1];
        assertEquals(OpenHftLocks.GONE, OpenHftLocks.named(f, kept));
        assertFalse(lockedHere(f), "the lock it asked for is given back");
        assertEquals(OpenHftLocks.GONE, OpenHftLocks.named(tmp.resolve("cpu-2.lock"), kept));
        assertNull(kept[0]);
    }

    @Test
    void aFileAnotherProcessLocksIsBusy(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("cpu-1.lock");
        Process holder = LockTableTest.lockedByAnotherProcess(f);
        try {
            FileChannel[] kept = new FileChannel[1];
            assertEquals(OpenHftLocks.BUSY, OpenHftLocks.named(f, kept));
            assertNull(kept[0]);
            assertTrue(locked(f), "still the other process's");
        } finally {
            holder.getOutputStream().close();
            holder.waitFor();
        }
    }

    @Test
    void openHftsOwnCheckSeesTheClaim(@TempDir Path tmp) throws Exception {
        // In another process OpenHFT's shared-lock check is refused; in this one the JDK refuses it with
        // OverlappingFileLockException, which OpenHFT also reads as busy. Only the first is the real
        // case (see NodeIT), this checks the lock type: a shared lock on our file is never granted.
        Path hft = Files.createDirectory(tmp.resolve("javatmp"));
        Claims c = Claims.open(tmp.resolve("c"), true, hft);
        c.claim(CpuSet.parse("1"));
        assertTrue(locked(hft.resolve("cpu-1.lock")));
        assertTrue(Files.readString(Path.of("/proc/locks")).lines().anyMatch(l -> l.contains(" WRITE ") && l.contains(LockTable.key(hft.resolve("cpu-1.lock")))),
                "an exclusive (WRITE) lock");
    }

    // ---- cleaners: lock files kept fresh, vanished claims made again -----------------------------

    /** Whether this process holds a lock on the file now at {@code f}. */
    static boolean lockedHere(Path f) {
        String k = LockTable.key(f);
        return k != null && Long.valueOf(LockTable.ownPid()).equals(LockTable.liveLocks().get(k));
    }

    @Test
    void aHolderWhoseLockFilesWereDeletedClaimsThemAgainAtTheNextRefresh(@TempDir Path tmp) throws Exception {
        Path hft = Files.createDirectory(tmp.resolve("javatmp"));
        Path dir = tmp.resolve("c");
        Claims c = Claims.open(dir, true, hft);
        assertEquals(CpuSet.empty(), c.claim(CpuSet.parse("0-1")));
        for (int pu = 0; pu < 2; pu++) {
            Files.delete(dir.resolve("pu-" + pu + ".lock")); // what a cleaner of /tmp does: the locks stay on unlinked files
            Files.delete(hft.resolve("cpu-" + pu + ".lock"));
        }
        assertFalse(lockedHere(dir.resolve("pu-0.lock")));
        assertEquals(CpuSet.parse("0-1"), c.refresh());
        for (int pu = 0; pu < 2; pu++) {
            assertTrue(lockedHere(dir.resolve("pu-" + pu + ".lock")), "pu-" + pu + ".lock made and locked again");
            assertTrue(lockedHere(hft.resolve("cpu-" + pu + ".lock")), "cpu-" + pu + ".lock made and locked again");
        }
        assertEquals(CpuSet.parse("0-1"), c.mine());
        assertEquals(CpuSet.parse("0-1"), c.openHftHeld());
        assertEquals(2, c.remade());
        assertTrue(c.lost().isEmpty());
        assertEquals(CpuSet.empty(), c.refresh(), "nothing vanished since");
    }

    @Test
    void aRemovedClaimsDirectoryIsMadeAgainOwnerOnly(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("c");
        Claims c = Claims.open(dir, true, Files.createDirectory(tmp.resolve("javatmp")));
        c.claim(CpuSet.parse("2"));
        Files.delete(dir.resolve("pu-2.lock"));
        Files.delete(dir);
        assertEquals(CpuSet.parse("2"), c.refresh());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
        assertTrue(lockedHere(dir.resolve("pu-2.lock")));
    }

    @Test
    void refreshMakesHeldLockFilesNewAndKeepsTheirLocks(@TempDir Path tmp) throws Exception {
        Path hft = Files.createDirectory(tmp.resolve("javatmp"));
        Path dir = tmp.resolve("c");
        Claims c = Claims.open(dir, true, hft);
        c.claim(CpuSet.parse("0"));
        long old = System.currentTimeMillis() - 30L * 24 * 3600 * 1000;
        for (Path f : java.util.List.of(dir, dir.resolve("pu-0.lock"), hft.resolve("cpu-0.lock"))) {
            assertTrue(f.toFile().setLastModified(old)); // by path: no descriptor of the locked file opened here
        }
        assertEquals(CpuSet.empty(), c.refresh());
        long fresh = System.currentTimeMillis() - 60_000;
        for (Path f : java.util.List.of(dir, dir.resolve("pu-0.lock"), hft.resolve("cpu-0.lock"))) {
            assertTrue(Files.getLastModifiedTime(f, LinkOption.NOFOLLOW_LINKS).toMillis() > fresh, f + " touched");
        }
        assertTrue(lockedHere(dir.resolve("pu-0.lock")), "the touch did not drop the lock");
        assertTrue(lockedHere(hft.resolve("cpu-0.lock")));
        assertEquals(0, c.remade());
    }

    @Test
    void aDeletedClaimThatAnotherHolderTookSinceIsReportedLostNotTakenBack(@TempDir Path tmp) throws Exception {
        Path hft = Files.createDirectory(tmp.resolve("javatmp"));
        Path dir = tmp.resolve("c");
        Claims first = Claims.open(dir, true, hft);
        first.claim(CpuSet.parse("3"));
        Files.delete(dir.resolve("pu-3.lock"));
        Files.delete(hft.resolve("cpu-3.lock"));
        Claims second = Claims.open(dir, true, hft);
        assertEquals(CpuSet.empty(), second.claim(CpuSet.parse("3")), "a newcomer finds PU 3 free");
        assertEquals(CpuSet.empty(), first.refresh());
        assertEquals(CpuSet.empty(), first.mine());
        assertEquals(java.util.Set.of(3), first.lost().keySet());
        assertEquals(CpuSet.parse("3"), second.mine());
        assertTrue(lockedHere(dir.resolve("pu-3.lock")), "the newcomer's lock still holds");
        assertTrue(lockedHere(hft.resolve("cpu-3.lock")));
    }
}
