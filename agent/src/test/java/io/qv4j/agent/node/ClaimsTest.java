package io.qv4j.agent.node;

import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Node-wide claims: one owner-only lock file per PU, never through a planted link. */
class ClaimsTest {

    @Test
    void claimingMakesOwnerOnlyLockFilesAndReleasingLetsGo(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("claims");
        Claims c = Claims.open(dir, true);
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
        Claims first = Claims.open(tmp.resolve("c"), true);
        Claims second = Claims.open(tmp.resolve("c"), true);
        first.claim(CpuSet.parse("3"));
        assertEquals(CpuSet.parse("3"), second.claim(CpuSet.parse("3-4")));
        assertEquals(CpuSet.parse("4"), second.mine());
    }

    @Test
    void observingTakesNothing(@TempDir Path tmp) {
        Claims c = Claims.open(tmp.resolve("c"), false);
        assertFalse(c.takes());
        assertEquals(CpuSet.empty(), c.claim(CpuSet.parse("0")));
        assertFalse(Files.exists(tmp.resolve("c").resolve("pu-0.lock")));
    }

    @Test
    void aClaimsDirectoryThatIsALinkOrOpenToOthersIsRefused(@TempDir Path tmp) throws Exception {
        Path real = Files.createDirectory(tmp.resolve("real"));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), real);
        Claims viaLink = Claims.open(link, true);
        assertFalse(viaLink.takes());
        assertNotNull(viaLink.refused());
        assertTrue(viaLink.refused().contains("symbolic link"), viaLink.refused());

        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertTrue(Claims.open(open, true).refused().contains("writable by group or others"));
    }

    @Test
    void aPlantedLinkAtALockFileIsNeverFollowed(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("c");
        Claims c = Claims.open(dir, true);
        Path victim = Files.writeString(tmp.resolve("victim"), "keep");
        Files.createSymbolicLink(dir.resolve("pu-5.lock"), victim);
        c.claim(CpuSet.parse("5"));
        assertEquals("keep", Files.readString(victim));
        assertTrue(Files.isSymbolicLink(dir.resolve("pu-5.lock")));
        assertFalse(c.mine().contains(5));
        assertFalse(Files.exists(dir.resolve("pu-5.lock"), LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(dir.resolve("pu-5.lock")));
    }
}
