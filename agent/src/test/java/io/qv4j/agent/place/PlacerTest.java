package io.qv4j.agent.place;

import io.qv4j.agent.config.ConfigFileAccess;
import io.qv4j.agent.config.Options;
import io.qv4j.agent.config.OptionsParser;
import io.qv4j.agent.config.Policy;
import io.qv4j.agent.config.Rules;
import io.qv4j.agent.config.RebalanceOptions;
import io.qv4j.agent.node.Claims;
import io.qv4j.agent.node.Node;
import io.qv4j.api.Scope;
import io.qv4j.testapps.AppPools;
import io.qv4j.testapps.AppThreads;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.HwType;
import io.qv4j.topology.SyntheticSpec;
import io.qv4j.topology.Topology;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Placement in one JVM without forking one: a synthetic machine, a recording binder, pools made by
 * "application" code ({@link AppPools}) and worker events played by the test.
 */
class PlacerTest {

    /** 2 packages x 4 cores x 2 PUs: PUs 0-15, core k = PUs 2k, 2k+1. */
    static final Topology MACHINE = SyntheticSpec.parse("package:2 core:4 pu:2");

    final RecordingBinder binder = new RecordingBinder();

    Placer placer(String options, String rules) throws Exception {
        Options o = OptionsParser.parse(options, new Properties(), Map.of());
        Placer p = new Placer(o, rules == null ? Rules.none() : ConfigFileAccess.rules(rules), 1000);
        p.ready(new Env(MACHINE, MACHINE.allowed(), binder, null, null, false));
        return p;
    }

    /** Live threads standing in for workers (a dead owner's slot is reclaimed), released after each test. */
    static final CountDownLatch END = new CountDownLatch(1);

    @AfterAll
    static void releaseThreads() {
        END.countDown();
    }

    static Thread alive(String name) {
        Thread t = new Thread(() -> {
            try {
                END.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    static List<Thread> start(Placer p, ThreadPoolExecutor pool, String prefix, int n) {
        List<Thread> ts = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            Thread t = alive(prefix + "-" + i);
            p.workerStart(pool, t);
            ts.add(t);
        }
        return ts;
    }

    static Pool pool(Placer p, ThreadPoolExecutor pool) {
        synchronized (p.registry().lock) {
            return p.registry().find(pool);
        }
    }

    static List<CpuSet> cpusets(Placer p, ThreadPoolExecutor pool) {
        List<CpuSet> out = new ArrayList<>();
        for (Worker w : pool(p, pool).workers()) if (!w.exited()) out.add(w.cpuset());
        return out;
    }

    @Test
    void fixedPoolGetsOneCorePerWorkerSpreadEvenlyOverTheMachine() throws Exception {
        Placer p = placer("", null);
        ThreadPoolExecutor pool = AppPools.fixed(4, p::poolCreated);
        start(p, pool, "app", 4);
        assertEquals(List.of(CpuSet.parse("0-1"), CpuSet.parse("4-5"), CpuSet.parse("8-9"), CpuSet.parse("12-13")), cpusets(p, pool));
        assertEquals(cpusets(p, pool), binder.calls);
        assertTrue(pool(p, pool).pinned());
        assertEquals("application pool", pool(p, pool).reason());
    }

    @Test
    void aReplacementWorkerTakesTheSlotItsPredecessorFreed() throws Exception {
        Placer p = placer("split-at=pu,color=packed", null);
        ThreadPoolExecutor pool = AppPools.fixed(3, p::poolCreated);
        List<Thread> ts = start(p, pool, "app", 3);
        p.workerExit(pool, ts.get(1));
        Thread again = alive("app-4");
        p.workerStart(pool, again);
        Worker w = pool(p, pool).workers().get(3);
        assertEquals(1, w.slot());
        assertEquals(CpuSet.parse("1"), w.cpuset());
    }

    @Test
    void workersBeyondThePoolSizeShareThePoolScope() throws Exception {
        Placer p = placer("split-at=core", null);
        ThreadPoolExecutor pool = AppPools.fixed(2, p::poolCreated);
        start(p, pool, "app", 3);
        Worker extra = pool(p, pool).workers().get(2);
        assertEquals(-1, extra.slot());
        assertEquals(pool(p, pool).scope(), extra.cpuset());
        assertEquals(CpuSet.parse("0-1,8-9"), extra.cpuset());
    }

    @Test
    void poolsAreNeverPlannedOnKernelIsolatedPusWhileTheJvmHasOthers() throws Exception {
        Topology isolated = MACHINE.withIsolation(CpuSet.parse("2-5"), CpuSet.empty());
        Placer p = new Placer(OptionsParser.parse("split-at=core", new Properties(), Map.of()), Rules.none(), 1000);
        p.ready(new Env(isolated, isolated.allowed(), binder, null, null, false));
        ThreadPoolExecutor pool = AppPools.fixed(6, p::poolCreated);
        start(p, pool, "app", 6);
        assertEquals(CpuSet.parse("0-1,6-15"), pool(p, pool).scope());
        for (CpuSet c : cpusets(p, pool)) assertFalse(c.intersects(CpuSet.parse("2-5")), c + " is on an isolated PU");
    }

    @Test
    void aJvmAllowedOnlyIsolatedPusPlansOnThem() throws Exception {
        Topology isolated = MACHINE.withIsolation(CpuSet.parse("2-5"), CpuSet.empty());
        Placer p = new Placer(OptionsParser.parse("split-at=pu", new Properties(), Map.of()), Rules.none(), 1000);
        p.ready(new Env(isolated, CpuSet.parse("2-5"), binder, null, null, false));
        ThreadPoolExecutor pool = AppPools.fixed(4, p::poolCreated);
        start(p, pool, "app", 4);
        assertEquals(List.of(CpuSet.of(2), CpuSet.of(3), CpuSet.of(4), CpuSet.of(5)), cpusets(p, pool).stream().sorted().toList());
    }

    @Test
    void aSecondPoolPlansOnThePusTheFirstLeftFree() throws Exception {
        Placer p = placer("split-at=core", null);
        ThreadPoolExecutor a = AppPools.fixed(4, p::poolCreated);
        ThreadPoolExecutor b = AppPools.fixed(4, p::poolCreated);
        start(p, a, "a", 4);
        start(p, b, "b", 4);
        Set<CpuSet> seen = new HashSet<>();
        for (CpuSet c : cpusets(p, a)) assertTrue(seen.add(c));
        for (CpuSet c : cpusets(p, b)) assertTrue(seen.add(c), "b's " + c + " overlaps a");
        assertFalse(pool(p, b).sharesPus());
    }

    @Test
    void whenTheFreePartCannotHoldAPoolItPlansOnTheWholeScopeAndSaysItShares() throws Exception {
        Placer p = placer("split-at=core", null);
        ThreadPoolExecutor a = AppPools.fixed(6, p::poolCreated);
        ThreadPoolExecutor b = AppPools.fixed(4, p::poolCreated);
        start(p, a, "a", 6);
        start(p, b, "b", 4);
        assertTrue(pool(p, b).sharesPus());
        assertEquals(MACHINE.allowed().toString(), pool(p, b).universe());
    }

    @Test
    void anExclusivePoolTakesTheLastCoreAndAPoolPinnedThereIsPlannedAgainOffIt() throws Exception {
        Placer p = placer("split-at=core", "rule.c.match.thread=critical-*\nrule.c.exclusive=true\n");
        ThreadPoolExecutor batch = AppPools.fixed(8, p::poolCreated);
        ThreadPoolExecutor critical = AppPools.fixed(1, p::poolCreated);
        start(p, batch, "batch", 8);
        start(p, critical, "critical", 1);
        CpuSet core = CpuSet.parse("14-15");
        assertTrue(pool(p, critical).exclusive());
        assertEquals(List.of(core), cpusets(p, critical));
        assertEquals(core, p.env().exclusive());
        assertFalse(pool(p, batch).scope().intersects(core), pool(p, batch).scope().toString());
        for (CpuSet c : cpusets(p, batch)) assertFalse(c.intersects(core), c + " of the batch pool on the exclusive core");
        assertTrue(pool(p, batch).reason().contains("planned again off the exclusive pus 14-15"), pool(p, batch).reason());
        ThreadPoolExecutor later = AppPools.fixed(2, p::poolCreated);
        start(p, later, "later", 2);
        for (CpuSet c : cpusets(p, later)) assertFalse(c.intersects(core), c + " of a later pool on the exclusive core");
    }

    /**
     * A placer on the live machine, {@code split-at=core}, bound by the recording binder only: a
     * synthetic machine of one PU per core whose PUs are this process's (the test is skipped below two).
     */
    private Placer livePlacer(Rules rules) throws Exception {
        CpuSet real = io.qv4j.agent.bind.Binder.currentMask();
        org.junit.jupiter.api.Assumptions.assumeTrue(real != null && real.cardinality() >= 2, "two PUs allowed");
        Topology live = SyntheticSpec.parse("core:" + (real.last() + 1) + " pu:1");
        Placer p = new Placer(OptionsParser.parse("split-at=core", new Properties(), Map.of()), rules, 1000);
        p.ready(new Env(live, real, binder, null, null, true));
        return p;
    }

    /**
     * A worker of the exclusive pool that takes its tid while the first one moves the JVM's other
     * threads off the cores is moved like them, then put back on its core. On the live machine,
     * bound by the recording binder only: a synthetic machine whose PUs are this process's.
     */
    @Test
    void aWorkerOfTheExclusivePoolThatComesWhileTheOthersAreMovedOffEndsOnItsCore() throws Exception {
        Placer p = livePlacer(ConfigFileAccess.rules("rule.c.match.thread=critical-*\nrule.c.exclusive=true\n"));
        int[] pus = p.env().jvm().toArray();
        ThreadPoolExecutor critical = AppPools.fixed(1, p::poolCreated);
        Thread late = alive("critical-late"); // started last: the walk over the JVM's threads meets it late
        long lateTid = tidOf("critical-late");
        CpuSet core = CpuSet.of(pus[pus.length - 1]);
        binder.atNextBindThread = () -> {
            synchronized (p.registry().lock) {
                Worker w = p.registry().addWorker(pool(p, critical), late);
                w.cpuset = core;
                w.tid = lateTid;
            }
        };
        start(p, critical, "critical", 1);
        assertEquals(core, p.env().exclusive());
        List<String> bound = new ArrayList<>();
        for (String b : binder.others) if (b.startsWith(lateTid + " ")) bound.add(b);
        assertEquals(lateTid + " " + core, bound.get(bound.size() - 1), "last bound: " + bound);
        assertTrue(bound.size() >= 2, "moved off with the others first: " + bound);
    }

    /**
     * A worker takes the free slot whose piece holds the PU it runs on, so its bind moves nothing;
     * one whose PU is in no free slot's piece takes the lowest free slot. A live environment over
     * this process's own PUs (the PU a thread runs on is only asked where the binder binds live).
     */
    @Test
    void aWorkerTakesTheFreeSlotWhosePieceHoldsThePuItRunsOn() throws Exception {
        Placer p = livePlacer(Rules.none());
        int[] pus = p.env().jvm().toArray();
        ThreadPoolExecutor pool = AppPools.fixed(pus.length, p::poolCreated);
        binder.cpu = pus[pus.length - 1];
        start(p, pool, "runs-on-last", 2);
        assertEquals(List.of(CpuSet.of(pus[pus.length - 1]), CpuSet.of(pus[0])), binder.calls,
                "the first on the PU it runs on, the second (same PU, now taken) in the lowest free slot");
    }

    /**
     * A worker that read the environment just before an exclusive pool took its cores plans with
     * the environment as it is when it plans: its pool stays off those cores. Seen in the demo:
     * the batch pool was planned onto the critical loop's core, which the walk then took back.
     */
    @Test
    void aPoolPlannedJustAfterAnExclusivePoolTookItsCoresStaysOffThem() throws Exception {
        Placer p = livePlacer(ConfigFileAccess.rules("rule.c.match.thread=critical-*\nrule.c.exclusive=true\n"));
        int pus = p.env().jvm().cardinality();
        ThreadPoolExecutor batch = AppPools.fixed(pus, p::poolCreated); // as many workers as PUs: the free ones cannot hold it
        ThreadPoolExecutor critical = AppPools.fixed(1, p::poolCreated);
        binder.atNextCurrentCpu = () -> {
            Thread t = new Thread(() -> start(p, critical, "critical", 1));
            t.start();
            try {
                t.join();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        };
        start(p, batch, "batch", 1);
        CpuSet exclusive = p.env().exclusive();
        assertFalse(exclusive.isEmpty(), "the critical pool's core is exclusive");
        assertFalse(pool(p, batch).scope().intersects(exclusive), "batch " + pool(p, batch).scope() + ", exclusive " + exclusive);
        assertFalse(pool(p, batch).sharesPus());
    }

    /** The kernel thread id of this process's thread named {@code name}: a thread names itself as it starts, so it is waited for. */
    private static long tidOf(String name) throws Exception {
        for (long end = System.nanoTime() + 10_000_000_000L; System.nanoTime() < end; Thread.sleep(5)) {
            try (var tasks = Files.list(Path.of("/proc/self/task"))) {
                for (Path t : (Iterable<Path>) tasks::iterator) {
                    try {
                        if (Files.readString(t.resolve("comm")).strip().equals(name)) return Long.parseLong(t.getFileName().toString());
                    } catch (java.io.IOException ended) {
                        // a thread that ended meanwhile
                    }
                }
            }
        }
        throw new AssertionError("no thread " + name);
    }

    @Test
    void whenTheExclusivePoolEndsItsCoreGoesBackAndThePoolPlannedOffItIsPlannedAgain() throws Exception {
        Placer p = placer("split-at=core", "rule.c.match.thread=critical-*\nrule.c.exclusive=true\n");
        ThreadPoolExecutor batch = AppPools.fixed(8, p::poolCreated);
        ThreadPoolExecutor critical = AppPools.fixed(1, p::poolCreated);
        start(p, batch, "batch", 8);
        Thread loop = start(p, critical, "critical", 1).get(0);
        assertFalse(pool(p, batch).scope().intersects(CpuSet.parse("14-15")));
        critical.shutdown();
        p.workerExit(critical, loop);
        assertEquals(CpuSet.empty(), p.env().exclusive());
        assertEquals(MACHINE.allowed(), pool(p, batch).scope(), pool(p, batch).reason());
        assertTrue(pool(p, batch).reason().endsWith("planned again: exclusive pus given back"), pool(p, batch).reason());
    }

    @Test
    void theExclusiveWordOfTheOptionsAppliesToEveryPoolUntilTheRestWouldBeEmpty() throws Exception {
        Placer p = placer("split-at=core,exclusive=true", null);
        ThreadPoolExecutor a = AppPools.fixed(7, p::poolCreated);
        ThreadPoolExecutor b = AppPools.fixed(1, p::poolCreated);
        start(p, a, "a", 7);
        start(p, b, "b", 1);
        assertTrue(pool(p, a).exclusive());
        assertEquals(CpuSet.parse("2-15"), pool(p, a).scope());
        assertFalse(pool(p, b).exclusive(), "the last core is the rest of the JVM's");
        assertTrue(pool(p, b).reason().contains("exclusive refused: it would leave the rest of the JVM 0 PUs"), pool(p, b).reason());
        assertEquals(List.of(CpuSet.parse("0-1")), cpusets(p, b));
    }

    @Test
    void unboundedPoolsAreBoundToTheJvmScopeNeverOnePuEach() throws Exception {
        Placer p = placer("split-at=pu", null);
        ThreadPoolExecutor pool = AppPools.cached(p::poolCreated);
        start(p, pool, "c", 3);
        for (CpuSet c : cpusets(p, pool)) assertEquals(MACHINE.allowed(), c);
    }

    @Test
    void aRuleBeatsTheOptionsAndAnAnnotationBeatsTheRule() throws Exception {
        Placer p = placer("split-at=core,color=spread", "rule.io.match.thread=io-*\nrule.io.split-at=pu\nrule.io.color=packed\n");
        ThreadPoolExecutor ruled = AppPools.fixed(2, p::poolCreated);
        start(p, ruled, "io", 2);
        assertEquals(List.of(CpuSet.parse("0"), CpuSet.parse("1")), cpusets(p, ruled));
        assertEquals("io", pool(p, ruled).rule());

        Policy annotated = new Policy(HwType.PACKAGE, 0, null, 1, null, -1, null, null, "@Placement on test");
        p.annotations(new Annotated() {
            @Override
            public Policy current() {
                return annotated;
            }

            @Override
            public void created(Object pool) {
            }

            @Override
            public CpuSet piece() {
                return null;
            }
        });
        ThreadPoolExecutor both = AppPools.fixed(2, p::poolCreated);
        p.annotations(Annotated.NONE);
        start(p, both, "io", 2);
        assertEquals(List.of(CpuSet.parse("8-15"), CpuSet.parse("8-15")), cpusets(p, both));
        assertNull(pool(p, both).rule());
        assertEquals("@Placement on test", pool(p, both).reason());
    }

    @Test
    void poolsNamedByNoGlobOfPoolsStayUnpinned() throws Exception {
        Placer p = placer("pools=work-*", null);
        ThreadPoolExecutor named = AppPools.fixed(1, p::poolCreated);
        ThreadPoolExecutor other = AppPools.fixed(1, p::poolCreated);
        start(p, named, "work", 1);
        start(p, other, "misc", 1);
        assertTrue(pool(p, named).pinned());
        assertFalse(pool(p, other).pinned());
        assertEquals(1, binder.calls.size());
    }

    @Test
    void dryRunPlacesAndReportsButNeverBinds() throws Exception {
        Options o = OptionsParser.parse("bind=dry-run,topology=package:2 core:4 pu:2", new Properties(), Map.of());
        Placer p = new Placer(o, Rules.none(), 1000);
        p.ready(new Env(MACHINE, MACHINE.allowed(), io.qv4j.agent.bind.Binders.choose(o.bind()), null, null, false));
        ThreadPoolExecutor pool = AppPools.fixed(2, p::poolCreated);
        start(p, pool, "app", 2);
        assertEquals(2, cpusets(p, pool).size());
        for (Worker w : pool(p, pool).workers()) assertFalse(w.bound());
    }

    @Test
    void aRebalanceKeepsEachPoolsOwnPolicyAndMovesTheClaims(@TempDir Path dir) throws Exception {
        Options o = OptionsParser.parse("split-at=core,color=spread", new Properties(), Map.of());
        Placer p = new Placer(o, ConfigFileAccess.rules("rule.io.match.thread=io-*\nrule.io.split-at=pu\nrule.io.color=packed\n"), 1000);
        Claims claims = isolatedClaims(dir);
        p.ready(new Env(MACHINE, MACHINE.allowed(), binder, null, Node.alone(MACHINE, claims), false));
        ThreadPoolExecutor io = AppPools.fixed(2, p::poolCreated);
        ThreadPoolExecutor cpu = AppPools.fixed(2, p::poolCreated);
        List<Thread> ioWorkers = start(p, io, "io", 2);
        List<Thread> cpuWorkers = start(p, cpu, "cpu", 2);
        assertEquals(union(p, io, cpu), claims.mine());

        Rebalancer r = new Rebalancer(p, new RebalanceOptions(100, 0.2), ManagementFactory.getThreadMXBean());
        List<Scope> pieces = Scope.of(MACHINE, MACHINE.allowed()).splitWeighted(new double[] {0.75, 0.25}).pieces();
        r.apply(List.of(new Rebalancer.Member(pool(p, io), ioWorkers), new Rebalancer.Member(pool(p, cpu), cpuWorkers)), pieces, p.env());

        CpuSet ioPiece = pieces.get(0).cpuset();
        int first = ioPiece.first();
        assertEquals(ioPiece, pool(p, io).scope());
        // packed on PUs: the first two PUs of the new piece, not spread over its cores
        assertEquals(CpuSet.of(first), pool(p, io).slots().piece(0));
        assertEquals(CpuSet.of(first + 1), pool(p, io).slots().piece(1));
        assertEquals(union(p, io, cpu), claims.mine());
        assertEquals(MACHINE.allowed(), claims.mine());
    }

    /**
     * A pool planned inside PUs this JVM claims already takes no plan lock, so another JVM that
     * holds it (stood for by a second holder in this JVM, which the JDK refuses the same file's
     * lock: a wait of half a second, then the plan goes on without it) does not hold that plan
     * up; a pool that needs a claim of a PU this JVM gave back waits for the lock.
     */
    @Test
    void aPoolPlannedInsidePusThisJvmClaimsTakesNoPlanLock(@TempDir Path dir) throws Exception {
        Options o = OptionsParser.parse("split-at=core", new Properties(), Map.of());
        Placer p = new Placer(o, Rules.none(), 1000);
        Claims claims = isolatedClaims(dir);
        p.ready(new Env(MACHINE, MACHINE.allowed(), binder, null, Node.alone(MACHINE, claims), false));
        assertEquals(CpuSet.empty(), claims.claim(MACHINE.allowed()));
        Claims otherJvm = isolatedClaims(dir);
        assertTrue(otherJvm.lockPlans());
        try {
            long t0 = System.nanoTime();
            ThreadPoolExecutor inside = AppPools.fixed(2, p::poolCreated);
            start(p, inside, "inside", 2);
            long inMillis = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(2, cpusets(p, inside).size(), "pinned");
            assertTrue(inMillis < 250, "planned without waiting for the plan lock: " + inMillis + " ms");

            CpuSet given = MACHINE.allowed().andNot(pool(p, inside).scope());
            claims.release(given);
            t0 = System.nanoTime();
            ThreadPoolExecutor outside = AppPools.fixed(2, p::poolCreated);
            start(p, outside, "outside", 2);
            long outMillis = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(outMillis >= 400, "a pool that claims a PU again waits for the plan lock: " + outMillis + " ms");
            inside.shutdown();
            outside.shutdown();
        } finally {
            otherJvm.unlockPlans();
        }
    }

    /**
     * Two JVMs on a hybrid machine (6 performance cores, 8 efficiency cores, one PU each), each with a
     * pool of 4: the second takes the two P-cores the first left before any E-core, and no PU twice.
     */
    @Test
    void twoJvmsOnAHybridMachineTakeDifferentPerformanceCoresBeforeEfficiencyCores(@TempDir Path dir) throws Exception {
        Topology laptop = SyntheticSpec.parse("package:1 core:14 kind:0-5@1 kind:6-13@0");
        Options o = OptionsParser.parse("", new Properties(), Map.of());
        List<Placer> jvms = new ArrayList<>();
        List<ThreadPoolExecutor> pools = new ArrayList<>();
        for (int j = 0; j < 2; j++) {
            Placer p = new Placer(o, Rules.none(), 1000);
            p.ready(new Env(laptop, laptop.allowed(), binder, null, Node.alone(laptop, isolatedClaims(dir)), false));
            ThreadPoolExecutor pool = AppPools.fixed(4, p::poolCreated);
            start(p, pool, "jvm" + j, 4);
            jvms.add(p);
            pools.add(pool);
        }
        CpuSet first = union(jvms.get(0), pools.get(0)), second = union(jvms.get(1), pools.get(1));
        assertEquals(4, first.cardinality());
        assertTrue(CpuSet.range(0, 5).containsAll(first), "first JVM on P-cores: " + first);
        assertEquals(CpuSet.range(0, 5), first.or(second.and(CpuSet.range(0, 5))), "second JVM takes the P-cores left: " + second);
        assertEquals(2, second.andNot(CpuSet.range(0, 5)).cardinality(), "then two E-cores: " + second);
        assertFalse(first.intersects(second));
    }

    /**
     * Another JVM claims one PU of node 1 on a 2-package, 4-node machine (a claim in progress, or
     * a worker of its own): pools of 2 take whole nodes nobody claims, never the node's other PU
     * as a piece of its own; packed stays in the package that has two whole nodes free.
     */
    @Test
    void aPuAnotherJvmClaimsLeavesItsWholeNodeOutAndPiecesStayWhole(@TempDir Path dir) throws Exception {
        Topology guest = SyntheticSpec.parse("package:2 numa:2 core:1 pu:2");
        for (String color : new String[] {"packed", "spread"}) {
            Path d = Files.createDirectories(dir.resolve(color));
            assertEquals(CpuSet.empty(), isolatedClaims(d).claim(CpuSet.of(2)));
            Placer p = new Placer(OptionsParser.parse("split-at=numa,color=" + color, new Properties(), Map.of()), Rules.none(), 1000);
            p.ready(new Env(guest, guest.allowed(), binder, null, Node.alone(guest, isolatedClaims(d)), false));
            ThreadPoolExecutor pool = AppPools.fixed(2, p::poolCreated);
            start(p, pool, color, 2);
            List<CpuSet> got = cpusets(p, pool);
            Set<CpuSet> nodes = Set.of(CpuSet.parse("0-1"), CpuSet.parse("4-5"), CpuSet.parse("6-7"));
            assertTrue(nodes.containsAll(got) && new HashSet<>(got).size() == 2, color + ": two whole nodes free of the claim: " + got);
            if (color.equals("packed")) assertEquals(Set.of(CpuSet.parse("4-5"), CpuSet.parse("6-7")), new HashSet<>(got));
        }
    }

    /** The group of plain threads a rule names, after {@code names} started (each "on itself": the recording binder binds nothing). */
    static Pool group(Topology machine, String options, String rule, RecordingBinder binder, String... names) throws Exception {
        Placer p = new Placer(OptionsParser.parse(options, new Properties(), Map.of()), ConfigFileAccess.rules(rule), 1000);
        p.ready(new Env(machine, machine.allowed(), binder, null, null, false));
        for (String n : names) {
            Thread t = AppThreads.plain(new AppThreads.Waiting(END), n); // a task of the application's, not of this package (the agent's)
            t.setDaemon(true);
            t.start();
            p.threadStart(t);
        }
        synchronized (p.registry().lock) {
            for (Pool x : p.registry().pools()) if (x.group()) return x;
        }
        throw new AssertionError("no group");
    }

    @Test
    void aGroupOfUnknownSizeLargerThanItsPiecesIsDealtEvenly() throws Exception {
        Topology three = SyntheticSpec.parse("numa:3 core:4");
        Pool g = group(three, "split-at=numa", "rule.g.match.thread=loop-*\n", binder, "loop-1", "loop-2", "loop-3", "loop-4", "loop-5", "loop-6", "loop-7");
        Map<CpuSet, Integer> per = new java.util.HashMap<>();
        for (Worker w : g.workers()) per.merge(w.cpuset(), 1, Integer::sum);
        assertEquals(Map.of(CpuSet.parse("0-3"), 3, CpuSet.parse("4-7"), 2, CpuSet.parse("8-11"), 2), per);
        assertEquals(7, g.tasks());
        assertFalse(g.oversubscribed());
    }

    @Test
    void sixThreadsOfAGroupOnTwoPusShareThemAllRatherThanFourAndTwo() throws Exception {
        Topology two = SyntheticSpec.parse("core:2");
        Pool g = group(two, "", "rule.v.match.thread=vert.x-eventloop-thread-*\n", binder,
                "vert.x-eventloop-thread-0", "vert.x-eventloop-thread-1", "vert.x-eventloop-thread-2",
                "vert.x-eventloop-thread-3", "vert.x-eventloop-thread-4", "vert.x-eventloop-thread-5");
        assertTrue(g.oversubscribed());
        for (Worker w : g.workers()) assertEquals(CpuSet.parse("0-1"), w.cpuset(), w.name());
        // the two placed before the group outgrew its PUs were moved by tid
        assertEquals(2, binder.others.size(), binder.others.toString());
        for (String o : binder.others) assertTrue(o.endsWith(" 0-1"), o);
    }

    /** Reactor's Schedulers.parallel(): N single-thread pools named parallel-1..N by the same code, spread as one group. */
    @Test
    void aFamilyOfSingleThreadPoolsMadeByTheSameCodeSpreadsAsOneGroup() throws Exception {
        Placer p = placer("", null);
        List<CpuSet> got = new ArrayList<>();
        List<ThreadPoolExecutor> pools = new ArrayList<>();
        for (int k = 1; k <= 4; k++) {
            ThreadPoolExecutor one = AppPools.scheduledOne(p::poolCreated);
            p.workerStart(one, alive("parallel-" + k));
            pools.add(one);
        }
        for (ThreadPoolExecutor one : pools) assertEquals("one of the family parallel, planned as one group", pool(p, one).reason());
        Pool family;
        synchronized (p.registry().lock) {
            family = p.registry().pools().stream().filter(x -> x.group()).findFirst().orElseThrow();
        }
        for (Worker w : family.workers()) got.add(w.cpuset());
        // one core in each half of each package, not the first four free cores of package 0
        assertEquals(List.of(CpuSet.parse("0-1"), CpuSet.parse("4-5"), CpuSet.parse("8-9"), CpuSet.parse("12-13")), got);
        assertEquals(4, family.tasks());

        // a single-thread pool on its own is still a pool of one on the first free core
        Placer q = placer("", null);
        ThreadPoolExecutor alone = AppPools.scheduledOne(q::poolCreated);
        q.workerStart(alone, alive("ticker-1"));
        synchronized (q.registry().lock) {
            Pool f = q.registry().pools().stream().filter(x -> x.group()).findFirst().orElseThrow();
            assertEquals(1, f.tasks());
            assertEquals(CpuSet.parse("0-1"), f.scope(), "a family of one claims one core");
        }
    }

    @Test
    void aSingleHousekeepingThreadIsNotPinnedUnlessARuleNamesIt() throws Exception {
        Placer p = placer("", null);
        ThreadPoolExecutor evictor = AppPools.fixed(1, p::poolCreated);
        start(p, evictor, "boundedElastic-evictor", 1);
        assertFalse(pool(p, evictor).pinned());
        assertEquals("housekeeping thread (its name says 'evictor'): a rule pins it", pool(p, evictor).reason());
        assertTrue(binder.calls.isEmpty(), binder.calls.toString());
        // two threads are a pool, whatever their name
        ThreadPoolExecutor two = AppPools.fixed(2, p::poolCreated);
        start(p, two, "cache-cleaner", 2);
        assertTrue(pool(p, two).pinned());

        Placer ruled = placer("", "rule.t.match.thread=vertx-blocked-thread-checker*\nrule.t.split-at=pu\n");
        ThreadPoolExecutor checker = AppPools.fixed(1, ruled::poolCreated);
        start(ruled, checker, "vertx-blocked-thread-checker", 1);
        assertTrue(pool(ruled, checker).pinned());
    }

    @Test
    void workersThatWouldOversubscribeAPieceShareThePoolScope() throws Exception {
        Placer p = placer("split-at=package", null);
        ThreadPoolExecutor pool = AppPools.fixed(6, p::poolCreated);
        start(p, pool, "app", 6);
        // 6 workers on 2 packages of 8 PUs: 3 each, no piece oversubscribed
        assertFalse(pool(p, pool).oversubscribed());

        Placer q = placer("split-at=core", null);
        ThreadPoolExecutor big = AppPools.fixed(24, q::poolCreated);
        start(q, big, "big", 24);
        // 24 workers on 8 cores of 2 PUs: 3 per core, more than its PUs: every worker shares the scope
        assertTrue(pool(q, big).oversubscribed());
        for (CpuSet c : cpusets(q, big)) assertEquals(MACHINE.allowed(), c);
        assertTrue(pool(q, big).reason().contains("oversubscribed"), pool(q, big).reason());

        Placer r = placer("split-at=core,oversubscribe=true", null);
        ThreadPoolExecutor pinned = AppPools.fixed(24, r::poolCreated);
        start(r, pinned, "pin", 24);
        assertFalse(pool(r, pinned).oversubscribed());
        for (CpuSet c : cpusets(r, pinned)) assertEquals(2, c.cardinality());
    }

    @Test
    void aPoolMadeByAPlacedWorkerSplitsThatWorkersPiece() throws Exception {
        Placer p = placer("split-at=package", null);
        ThreadPoolExecutor outer = AppPools.fixed(2, p::poolCreated);
        List<Thread> ts = start(p, outer, "outer", 2);
        CpuSet piece = cpusets(p, outer).get(1);
        assertEquals(CpuSet.parse("8-15"), piece);
        ThreadPoolExecutor[] inner = new ThreadPoolExecutor[1];
        // made on the placed worker's own thread, as an application would
        runAs(p, ts.get(1), () -> inner[0] = AppPools.fixed(4, p::poolCreated));
        ThreadPoolExecutor made = inner[0];
        start(p, made, "inner", 4);
        assertEquals(piece, pool(p, made).parent());
        for (CpuSet c : cpusets(p, made)) assertTrue(piece.containsAll(c), c + " outside " + piece);
        ThreadPoolExecutor fromMain = AppPools.fixed(2, p::poolCreated);
        start(p, fromMain, "main", 2);
        assertNull(pool(p, fromMain).parent());
    }

    @Test
    void aWorkerThatDiedWithoutAnExitEventFreesItsSlotForTheNext() throws Exception {
        Placer p = placer("split-at=pu,color=packed", null);
        ThreadPoolExecutor pool = AppPools.fixed(2, p::poolCreated);
        Thread dead = new Thread(() -> { }, "app-1");
        dead.start();
        dead.join();
        p.workerStart(pool, dead);             // its exit hook never ran (an exception out of run)
        start(p, pool, "app", 1);
        Thread next = alive("app-3");
        p.workerStart(pool, next);
        assertEquals(List.of(CpuSet.parse("1"), CpuSet.parse("0")), cpusets(p, pool));
    }

    @Test
    void aResizedPoolIsPlannedAgainForItsNewSize() throws Exception {
        Placer p = placer("split-at=core", null);
        ThreadPoolExecutor pool = AppPools.fixed(1, p::poolCreated);
        start(p, pool, "app", 1);
        assertEquals(List.of(CpuSet.parse("0-1")), cpusets(p, pool));
        pool.setMaximumPoolSize(4);
        pool.setCorePoolSize(4);
        start(p, pool, "more", 3);
        assertEquals(4, pool(p, pool).tasks());
        Set<CpuSet> distinct = new HashSet<>(cpusets(p, pool));
        assertEquals(4, distinct.size(), "one core each after the resize: " + cpusets(p, pool));
    }

    /** Runs {@code r} on the current thread while the registry takes it for worker {@code t}. */
    private static void runAs(Placer p, Thread t, Runnable r) {
        Thread me = Thread.currentThread();
        synchronized (p.registry().lock) {
            Worker w = p.registry().worker(t);
            p.registry().liveWorkers().remove(t);
            p.registry().liveWorkers().put(me, w);
        }
        try {
            r.run();
        } finally {
            synchronized (p.registry().lock) {
                Worker w = p.registry().liveWorkers().remove(me);
                p.registry().liveWorkers().put(t, w);
            }
        }
    }

    /**
     * Claims in {@code dir} that also look for OpenHFT lock files there, not in the machine's
     * java.io.tmpdir, where other processes' locks would change what this test plans.
     */
    private static Claims isolatedClaims(Path dir) {
        return Claims.open(dir.resolve("claims"), true, dir);
    }

    private static CpuSet union(Placer p, ThreadPoolExecutor... pools) {
        CpuSet u = CpuSet.empty();
        for (ThreadPoolExecutor x : pools) u = u.or(pool(p, x).scope());
        return u;
    }
}
