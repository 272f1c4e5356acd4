package io.qv4j.agent.place;

import io.qv4j.agent.config.OptionsParser;
import io.qv4j.agent.config.Rules;
import io.qv4j.agent.load.PuLoad;
import io.qv4j.agent.node.Claims;
import io.qv4j.agent.node.Node;
import io.qv4j.testapps.AppPools;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.SyntheticSpec;
import io.qv4j.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.function.LongUnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The busy-neighbours watcher's decisions, period by period, on a synthetic machine with a
 * recording binder and the loads a test gives ({@link NeighbourReadings}).
 */
class NeighboursTest {

    /** 2 packages x 2 cores x 1 PU: PUs 0-3, packages {0,1} and {2,3}. */
    static final Topology MACHINE = SyntheticSpec.parse("package:2 core:2 pu:1");
    /** Two PUs, 0 and 1. */
    static final Topology TWO = SyntheticSpec.parse("package:1 core:2 pu:1");

    final RecordingBinder binder = new RecordingBinder();
    final Deque<PuLoad> loads = new ArrayDeque<>();
    /** The workers' run-queue waits so far, ns, as the confirming wait reads them; -1: unknown (the move is not held back). */
    LongUnaryOperator waitedNanos = tid -> -1;

    Placer placer(Topology t) throws Exception {
        Placer p = new Placer(OptionsParser.parse("split-at=core", new Properties(), Map.of()), Rules.none(), 1000);
        p.ready(new Env(t, t.allowed(), binder, null, null, false));
        return p;
    }

    Neighbours watcher(Placer p) {
        return watcher(p, () -> { });
    }

    /** A watcher whose confirming looks see no new load, and run {@code whileConfirming} first. */
    Neighbours watcher(Placer p, Runnable whileConfirming) {
        Neighbours n = new Neighbours(p, new NeighbourReadings() {
            @Override
            public PuLoad next(long[] tids) {
                return loads.poll();
            }

            @Override
            public PuLoad since() {
                whileConfirming.run();
                return null;
            }

            @Override
            public long waitedNanos(long tid) {
                return waitedNanos.applyAsLong(tid);
            }

            @Override
            public void reset() {
            }
        }, 500);
        p.neighbours(n);
        return n;
    }

    /** Workers of a fixed pool of {@code n}, each given its own tid 101, 102, ... */
    /** The pools made: the registry holds them weakly, and a pool the collector took is no longer watched. */
    final List<ThreadPoolExecutor> made = new ArrayList<>();

    List<Worker> pool(Placer p, int n) {
        ThreadPoolExecutor pool = AppPools.fixed(n, p::poolCreated);
        made.add(pool);
        PlacerTest.start(p, pool, "app", n);
        List<Worker> ws = new ArrayList<>(PlacerTest.pool(p, pool).workers());
        for (int i = 0; i < ws.size(); i++) ws.get(i).tid = 101 + i;
        binder.others.clear();
        return ws;
    }

    /** Others' load per PU, and the waits of tids 101, 102, ... */
    static PuLoad load(double[] foreign, double... waits) {
        Map<Long, Double> w = new HashMap<>();
        for (int i = 0; i < waits.length; i++) w.put(101L + i, waits[i]);
        return PuLoad.of(foreign, w, 500_000_000L);
    }

    @Test
    void aWorkerThatWaitsOnAPuOthersKeepBusyMovesToTheNearestIdlePieceByItsTid() throws Exception {
        Placer p = placer(MACHINE);
        Neighbours n = watcher(p);
        List<Worker> ws = pool(p, 1);
        assertEquals(CpuSet.of(0), ws.get(0).cpuset());
        loads.add(load(new double[] {0.6, 0, 0, 0}, 0.5));
        assertTrue(n.period(false));
        assertEquals(List.of("101 1"), binder.others, "core 1 shares package 0 with core 0: nearer than cores 2 and 3");
        assertEquals(CpuSet.of(1), ws.get(0).cpuset());
        assertEquals(1, ws.get(0).moves());
        assertEquals(0.5, ws.get(0).waited());
        assertEquals(1, n.report().get("moves"));
    }

    /** One quick look at the worker of a pool of one on PU 0 of two, PU 1 idle, with its run-queue wait as {@code waits} reads it. */
    private Worker quickLookAtAContendedWorker(LongUnaryOperator waits) throws Exception {
        Placer p = placer(TWO);
        Neighbours n = watcher(p);
        Worker w = pool(p, 1).get(0);
        waitedNanos = waits;
        loads.add(load(new double[] {0.5, 0}, 0.5));
        assertTrue(n.period(true));
        return w;
    }

    @Test
    void aWorkerThatNoLongerWaitsAtTheEndOfTheConfirmingWaitStaysWhereItIs() throws Exception {
        // another JVM's worker that shared its PU moved first: this one now runs alone
        Worker w = quickLookAtAContendedWorker(tid -> 7_000_000L);
        assertEquals(List.of(), binder.others);
        assertEquals(CpuSet.of(0), w.cpuset());
        assertEquals(0, w.moves());
    }

    @Test
    void aWorkerStillKeptWaitingAtTheEndOfTheConfirmingWaitMoves() throws Exception {
        Worker w = quickLookAtAContendedWorker(tid -> System.nanoTime() / 2); // waits half of every moment
        assertEquals(List.of("101 1"), binder.others);
        assertEquals(CpuSet.of(1), w.cpuset());
    }

    @Test
    void onAHostWhoseBackgroundKeepsEveryPuBusyAWorkerBesideASpinnerMovesToTheClearlyQuieterPu() throws Exception {
        Placer p = placer(TWO);
        Neighbours n = watcher(p);
        List<Worker> ws = pool(p, 1);
        loads.add(load(new double[] {0.5, 0.15}, 0.5)); // no idle PU, but PU 1 is 35 points quieter
        assertTrue(n.period(false));
        assertEquals(List.of("101 1"), binder.others);
        assertEquals(CpuSet.of(1), ws.get(0).cpuset());
    }

    @Test
    void anIdlePieceFartherAwayBeatsANearerOneThatIsOnlyQuieter() throws Exception {
        Placer p = placer(MACHINE);
        Neighbours n = watcher(p);
        pool(p, 1);
        loads.add(load(new double[] {0.6, 0.2, 0, 0.3}, 0.5)); // core 1 shares package 0 but is 20 % busy; core 2 is idle
        assertTrue(n.period(false));
        assertEquals(List.of("101 2"), binder.others);
    }

    @Test
    void aPuLessThanClearlyQuieterIsNoTarget() throws Exception {
        Placer p = placer(TWO);
        Neighbours n = watcher(p);
        List<Worker> ws = pool(p, 1);
        for (int i = 0; i < 4; i++) loads.add(load(new double[] {0.35, 0.15}, 0.3));
        for (int i = 0; i < 4; i++) assertTrue(n.period(false));
        assertEquals(List.of(), binder.others, "20 points quieter is not 25: neither a move nor a release");
        assertEquals(CpuSet.of(0), ws.get(0).cpuset());
    }

    @Test
    void aWaitTheJvmsOwnThreadsCauseMovesNothing() throws Exception {
        Placer p = placer(MACHINE);
        Neighbours n = watcher(p);
        List<Worker> ws = pool(p, 2);
        for (int i = 0; i < 10; i++) loads.add(load(new double[] {0.05, 0, 0.05, 0}, 0.5, 0.5)); // a GC or JIT burst: waits, but others' load is low
        for (int i = 0; i < 10; i++) assertTrue(n.period(false));
        assertEquals(List.of(), binder.others);
        assertEquals(0, ws.get(0).moves() + ws.get(1).moves());
    }

    @Test
    void aBusyPuWhereTheWorkerDoesNotWaitMovesNothing() throws Exception {
        Placer p = placer(MACHINE);
        Neighbours n = watcher(p);
        pool(p, 1);
        loads.add(load(new double[] {0.9, 0, 0, 0}, 0.05)); // an I/O worker, rarely runnable
        assertTrue(n.period(false));
        assertEquals(List.of(), binder.others);
    }

    @Test
    void aQuickLookMovesAWorkerWithoutAvoidingThePuItLeftSoTwoThatMovedTogetherPartAtTheNextLook() throws Exception {
        Placer p = placer(TWO);
        Neighbours n = watcher(p);
        pool(p, 1);
        loads.add(load(new double[] {0.5, 0}, 0.5));
        loads.add(load(new double[] {0, 0.5}, 0.5)); // another JVM's worker left PU 0 for PU 1 at the same instant
        assertTrue(n.period(true) && n.period(true));
        assertEquals(List.of("101 1", "101 0"), binder.others, "after a period's move it would stay (aPuLeftBecauseOfOthersIsNotATargetAgainForAWhile)");
    }

    @Test
    void quickLooksReleaseNoPoolHoweverContendedItsWorkers() throws Exception {
        Placer p = placer(TWO);
        Neighbours n = watcher(p);
        List<Worker> ws = pool(p, 2);
        for (int i = 0; i < 3; i++) loads.add(load(new double[] {0.5, 0}, 0.5, 0));
        for (int i = 0; i < 3; i++) assertTrue(n.period(true));
        assertEquals(List.of(), binder.others);
        assertFalse(ws.get(0).pool.released());
    }

    @Test
    void withNoIdlePieceThePoolIsReleasedAfterTwoContendedPeriodsAndPinnedAgainOnceQuietForLongerEachTime() throws Exception {
        Placer p = placer(TWO);
        Neighbours n = watcher(p);
        List<Worker> ws = pool(p, 2);
        Pool pool = ws.get(0).pool;
        loads.add(load(new double[] {0.5, 0}, 0.5, 0));
        assertTrue(n.period(false));
        assertEquals(List.of(), binder.others, "one contended period is not enough to give up pinning");
        loads.add(load(new double[] {0.5, 0}, 0.5, 0));
        assertTrue(n.period(false));
        assertEquals(Set.of("101 0-1", "102 0-1"), new HashSet<>(binder.others));
        assertTrue(pool.released());
        assertEquals(1, n.report().get("releases"));
        binder.others.clear();
        loads.add(load(new double[] {0.5, 0}));
        assertTrue(n.period(false));
        assertEquals(List.of(), binder.others, "still busy: stays released");
        for (int i = 0; i < Neighbours.QUIET_PERIODS << 1; i++) loads.add(load(new double[] {0, 0}));
        for (int i = 1; i < Neighbours.QUIET_PERIODS << 1; i++) assertTrue(n.period(false));
        assertEquals(List.of(), binder.others, "the quiet time doubles after a release");
        assertTrue(n.period(false));
        assertFalse(pool.released());
        assertEquals(2, binder.others.size(), binder.others.toString());
        assertEquals(CpuSet.parse("0-1"), ws.get(0).cpuset().or(ws.get(1).cpuset()));
    }

    @Test
    void aShortBurstOfOthersWithNoIdlePieceReleasesNothingTwoPeriodsInARowDo() throws Exception {
        Placer p = placer(TWO);
        Neighbours n = watcher(p);
        List<Worker> ws = pool(p, 2);
        loads.add(load(new double[] {0.3, 0}, 0.3, 0)); // another JVM's compiler threads, for a moment
        loads.add(load(new double[] {0, 0}, 0, 0));
        loads.add(load(new double[] {0.3, 0}, 0.3, 0));
        for (int i = 0; i < 3; i++) assertTrue(n.period(false));
        assertFalse(ws.get(0).pool.released());
        loads.add(load(new double[] {0.3, 0}, 0.3, 0));
        assertTrue(n.period(false));
        assertTrue(ws.get(0).pool.released(), "two contended periods in a row");
    }

    @Test
    void twoContendedWorkersOfOnePoolAreOnePeriodsStrikeNotTwo() throws Exception {
        Placer p = placer(MACHINE);
        Neighbours n = watcher(p);
        List<Worker> ws = pool(p, 4);
        loads.add(load(new double[] {0.6, 0.6, 0, 0}, 0.5, 0.5, 0, 0));
        assertTrue(n.period(false));
        assertFalse(ws.get(0).pool.released(), "one period, however many of its workers wait");
    }

    @Test
    void aWorkerWhoseEveryOtherPuIsBusierStaysPinned() throws Exception {
        Placer p = placer(TWO);
        Neighbours n = watcher(p);
        pool(p, 1);
        // another JVM's worker pinned on PU 1, its compiler threads on PU 0 beside this one
        for (int i = 0; i < 4; i++) loads.add(load(new double[] {0.35, 1.0}, 0.33));
        for (int i = 0; i < 4; i++) assertTrue(n.period(false));
        assertEquals(List.of(), binder.others);
        // more than one other thread on its PU: the kernel can do no worse
        for (int i = 0; i < 2; i++) loads.add(load(new double[] {0.7, 1.0}, 0.67));
        for (int i = 0; i < 2; i++) assertTrue(n.period(false));
        assertEquals(List.of("101 0-1"), binder.others);
    }

    @Test
    void aPuLeftBecauseOfOthersIsNotATargetAgainForAWhile() throws Exception {
        Placer p = placer(TWO);
        Neighbours n = watcher(p);
        List<Worker> ws = pool(p, 1);
        loads.add(load(new double[] {0.6, 0}, 0.5));
        assertTrue(n.period(false));
        assertEquals(List.of("101 1"), binder.others);
        binder.others.clear();
        // a neighbour comes to PU 1 while PU 0 is quiet: no move back onto PU 0 (it may be a neighbour
        // that comes and goes); with no other piece the pool is released instead
        for (int i = 0; i < Neighbours.COOLDOWN_PERIODS + Neighbours.RELEASE_PERIODS; i++) loads.add(load(new double[] {0, 0.6}, 0.5));
        for (int i = 0; i < Neighbours.COOLDOWN_PERIODS + Neighbours.RELEASE_PERIODS; i++) assertTrue(n.period(false));
        assertEquals(List.of("101 0-1"), binder.others);
        assertEquals(1, ws.get(0).moves());
    }

    @Test
    void nothingPinnedNothingWatched() throws Exception {
        Placer p = placer(MACHINE);
        Neighbours n = watcher(p);
        assertFalse(n.period(false));
    }

    /** No load from others; the run shares of tids 101, 102, ... */
    static PuLoad ran(int pus, double... shares) {
        Map<Long, Double> r = new HashMap<>();
        for (int i = 0; i < shares.length; i++) r.put(101L + i, shares[i]);
        return PuLoad.of(new double[pus], Map.of(), r, 500_000_000L);
    }

    @Test
    void theWatchersOwnLooksRunOffThePuOfAWorkerThatMostlyWaitsBesideOneThatComputes() throws Exception {
        Placer p = placer(TWO);
        Neighbours n = watcher(p);
        List<Worker> ws = pool(p, 2);
        binder.calls.clear();
        loads.add(ran(2, 0.1, 1.0));
        assertTrue(n.period(true));
        assertEquals(List.of(CpuSet.of(1)), binder.calls, "worker 101 on pu 0 ran 10 % of the window: the watcher binds itself to pu 1");
        assertEquals(List.of(), binder.others, "no worker moved");
        loads.add(ran(2, 0.1, 1.0));
        assertTrue(n.period(false));
        assertEquals(List.of(CpuSet.of(1)), binder.calls, "already there: no second call");
        loads.add(ran(2, 0.9, 1.0));
        assertTrue(n.period(false));
        assertEquals(List.of(CpuSet.of(1), CpuSet.of(0, 1)), binder.calls, "neither waits now: back to the whole scope");
        assertEquals(CpuSet.of(0), ws.get(0).cpuset());
    }

    @Test
    void whereEveryPinnedWorkerWaitsTheWatcherStaysWhereItWas() throws Exception {
        Placer p = placer(TWO);
        Neighbours n = watcher(p);
        pool(p, 2);
        binder.calls.clear();
        loads.add(ran(2, 0.1, 0.0));
        assertTrue(n.period(false));
        assertEquals(List.of(), binder.calls, "no pu without a waiting worker: its mask is left as it started");
    }

    @Test
    void aQuickLookMovesAWorkerBesideAnotherJvmsSpinnerToAPuOnlyFifteenPointsQuieterAPeriodDoesNot() throws Exception {
        // the other PU carries the other JVM's start-up (its compiler threads), which passes
        Placer p = placer(TWO);
        Neighbours n = watcher(p);
        List<Worker> ws = pool(p, 1);
        assertEquals(CpuSet.of(0), ws.get(0).cpuset());
        loads.add(load(new double[] {0.48, 0.33}, 0.5));
        assertTrue(n.period(false));
        assertEquals(List.of(), binder.others, "15 points quieter is not the period's 25");
        loads.add(load(new double[] {0.48, 0.33}, 0.5));
        assertTrue(n.period(true));
        assertEquals(List.of("101 1"), binder.others, "a quick look's margin is " + MoveTargets.QUICK_MARGIN);
    }

    @Test
    void aMoveWhoseTargetAnotherJvmClaimedDuringTheConfirmingWaitIsNotMade(@TempDir Path tmp) throws Exception {
        Claims claims = Claims.open(tmp.resolve("claims"), true, tmp);
        Placer p = new Placer(OptionsParser.parse("split-at=core", new Properties(), Map.of()), Rules.none(), 1000);
        p.ready(new Env(MACHINE, MACHINE.allowed(), binder, null, Node.alone(MACHINE, claims), false));
        List<FileChannel> held = new ArrayList<>();
        Neighbours n = watcher(p, () -> {
            // while the watcher waits to confirm, PU 1 is claimed: an OpenHFT lock file a live process holds counts
            try {
                FileChannel ch = FileChannel.open(tmp.resolve("cpu-1.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                held.add(ch);
                assertTrue(ch.tryLock() != null);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try {
            List<Worker> ws = pool(p, 1);
            assertEquals(CpuSet.of(0), ws.get(0).cpuset());
            loads.add(load(new double[] {0.6, 0, 0, 0}, 0.5));
            assertTrue(n.period(false));
            assertEquals(1, held.size(), "the watcher chose core 1 and waited to confirm");
            assertEquals(List.of(), binder.others, "not moved onto the PU claimed meanwhile");
            assertEquals(CpuSet.of(0), ws.get(0).cpuset());
            assertEquals(CpuSet.of(0), claims.mine(), "the claims stay where the worker is");
        } finally {
            for (FileChannel ch : held) ch.close();
            claims.release(claims.mine());
        }
    }
}
