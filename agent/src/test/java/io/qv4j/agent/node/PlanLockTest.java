package io.qv4j.agent.node;

import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The claims' plan lock: one holder at a time (a second holder in this JVM stands for another
 * JVM: the JDK refuses it the same file's lock), reentrant, never blocking a plan for long, never
 * through a planted link.
 */
class PlanLockTest {

    @Test
    void aSecondHolderWaitsTheLockOutThenGoesOnWithoutItAndAfterThatWaitsOnlyBriefly(@TempDir Path dir) {
        PlanLock first = new PlanLock();
        PlanLock second = new PlanLock();
        assertTrue(first.enter(dir));
        long t0 = System.nanoTime();
        assertFalse(second.enter(dir));
        long waited = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(waited >= PlanLock.WAIT_MILLIS, "gave up after " + waited + " ms");
        t0 = System.nanoTime();
        assertFalse(second.enter(dir));
        waited = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(waited < PlanLock.WAIT_MILLIS, "waited the whole " + waited + " ms again beside a holder that does not let go");
        first.exit();
        assertTrue(second.enter(dir), "free again: had at once");
        assertFalse(first.held());
        assertTrue(second.held());
    }

    @Test
    void theLockIsReentrantAndGoesWithTheLastExit(@TempDir Path dir) {
        PlanLock a = new PlanLock();
        assertTrue(a.enter(dir));
        assertTrue(a.enter(dir));
        a.exit();
        assertTrue(a.held());
        a.exit();
        assertFalse(a.held());
        a.exit(); // one exit too many changes nothing
        PlanLock b = new PlanLock();
        assertTrue(b.enter(dir));
    }

    @Test
    void aLockFileDeletedMeanwhileIsMadeAgainAndLockedOnceItsPathIsLookedAtAgain(@TempDir Path dir) throws Exception {
        PlanLock a = new PlanLock();
        assertTrue(a.enter(dir));
        a.exit();
        Files.delete(dir.resolve("plan.lock"));
        Thread.sleep(PlanLock.KEY_CHECK_MILLIS + 20);
        assertTrue(a.enter(dir));
        assertTrue(Files.isRegularFile(dir.resolve("plan.lock"), LinkOption.NOFOLLOW_LINKS));
        assertFalse(new PlanLock().enter(dir), "the new file is the one locked");
    }

    @Test
    void anInterruptedThreadTakesAFreeLockGivesUpABusyOneAtOnceAndKeepsItsInterrupt(@TempDir Path dir) {
        PlanLock a = new PlanLock();
        PlanLock other = new PlanLock();
        Thread.currentThread().interrupt();
        try {
            assertTrue(a.enter(dir));
            assertTrue(Thread.currentThread().isInterrupted());
            long t0 = System.nanoTime();
            assertFalse(other.enter(dir));
            assertTrue(System.nanoTime() - t0 < PlanLock.WAIT_MILLIS * 1_000_000L, "waited while interrupted");
            assertTrue(Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }
        a.exit();
        assertTrue(other.enter(dir), "the lock still works after the interrupt");
        other.exit();
    }

    @Test
    void aPlanLockThatIsASymbolicLinkIsNotFollowed(@TempDir Path dir) throws Exception {
        Path target = dir.resolve("target");
        Files.createSymbolicLink(dir.resolve("plan.lock"), target);
        assertFalse(new PlanLock().enter(dir));
        assertFalse(Files.exists(target, LinkOption.NOFOLLOW_LINKS), "nothing made through the link");
    }

    @Test
    void claimsTakeThePlanLockOnlyWhereTheyTakeClaims(@TempDir Path tmp) {
        Claims taking = Claims.open(tmp.resolve("c"), true, tmp);
        assertTrue(taking.lockPlans());
        Claims observing = Claims.open(tmp.resolve("c"), false, tmp);
        assertFalse(observing.lockPlans());
        taking.unlockPlans();
        assertTrue(taking.lockPlans());
        taking.unlockPlans();
    }

    @Test
    void whileThePlanLockIsHeldTheOthersClaimsJustReadAreTheAnswerWithoutItTheyAreReadAgain(@TempDir Path tmp) {
        Claims mine = Claims.open(tmp.resolve("c"), true, tmp);
        CpuSet half = CpuSet.parse("0"); // read a moment ago: another JVM's claim on half the piece 0-1, given back since
        List<CpuSet> pieces = List.of(CpuSet.parse("0-1"), CpuSet.parse("2-3"));
        assertTrue(mine.lockPlans());
        assertEquals(half, mine.othersSettled(CpuSet.parse("0-3"), half, pieces), "read again under the lock");
        mine.unlockPlans();
        assertEquals(CpuSet.empty(), mine.othersSettled(CpuSet.parse("0-3"), half, pieces), "not read again without the lock");
    }

    @Test
    void aClaimThatCutsAPieceInPartCallsForAnotherReadOneOnWholePiecesOrNoneDoesNot() {
        List<CpuSet> pieces = List.of(CpuSet.parse("0-1"), CpuSet.parse("2-3"));
        assertTrue(Claims.cutsInPart(CpuSet.parse("0"), pieces));
        assertTrue(Claims.cutsInPart(CpuSet.parse("0-2"), pieces));
        assertFalse(Claims.cutsInPart(CpuSet.parse("0-1"), pieces));
        assertFalse(Claims.cutsInPart(CpuSet.parse("0-3"), pieces));
        assertFalse(Claims.cutsInPart(CpuSet.empty(), pieces));
    }
}
