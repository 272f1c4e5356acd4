package io.qv4j.api;

import io.qv4j.api.Members.Outcome;
import io.qv4j.api.TaskGroup.Member;
import io.qv4j.api.TaskGroup.Subgroup;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Collective operations that need no split engine: split by color, barrier, failures. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class TaskGroupTest {

    private final Topology cores64 = TestTopologies.machine(2, 32, 1);

    @Test
    void sixtyFourMembersColoredByRankModFourWithKeyMinusRankFormFourReversedSubgroupsInColorOrder() throws Exception {
        Scope scope = Scope.of(cores64);
        List<Outcome> out = Members.run(TaskGroup.create(64, Duration.ofSeconds(5)), m -> {
            Subgroup sub = m.split(scope, m.rank() % 4, -m.rank()).orElseThrow();
            sub.barrier(); // the subgroup is a communicator of its own
            return sub;
        });
        Set<TaskGroup> groups = new HashSet<>();
        for (Outcome o : out) {
            Subgroup sub = o.value(Subgroup.class);
            int color = o.rank() % 4;
            assertEquals(16, sub.size());
            assertEquals(15 - o.rank() / 4, sub.rank(), "rank " + o.rank());
            assertEquals(CpuSet.range(16 * color, 16 * color + 15), sub.scope().cpuset(), "rank " + o.rank());
            groups.add(sub.group());
        }
        assertEquals(4, groups.size());
    }

    @Test
    void colorClassesGetSharesProportionalToTheirSizeInColorOrderNotArrivalOrder() throws Exception {
        Scope scope = Scope.of(cores64);
        // ranks 0-4 take color 7, ranks 5-7 color 2: color 2 comes first with 3/8 of 64 cores
        List<Outcome> out = Members.run(TaskGroup.create(8), m ->
                m.split(scope, m.rank() < 5 ? 7 : 2, 0).orElseThrow());
        for (Outcome o : out) {
            Subgroup sub = o.value(Subgroup.class);
            if (o.rank() < 5) {
                assertEquals(CpuSet.range(24, 63), sub.scope().cpuset());
                assertEquals(o.rank(), sub.rank());
            } else {
                assertEquals(CpuSet.range(0, 23), sub.scope().cpuset());
                assertEquals(o.rank() - 5, sub.rank());
            }
        }
    }

    @Test
    void sharesAreCutInPusWhenThereAreMoreColorsThanCores() throws Exception {
        Scope scope = Scope.of(TestTopologies.machine(1, 2, 2)); // 2 cores, 4 PUs
        List<Outcome> out = Members.run(TaskGroup.create(3), m -> m.split(scope, m.rank(), 0).orElseThrow());
        assertEquals(CpuSet.range(0, 1), out.get(0).value(Subgroup.class).scope().cpuset());
        assertEquals(CpuSet.of(2), out.get(1).value(Subgroup.class).scope().cpuset());
        assertEquals(CpuSet.of(3), out.get(2).value(Subgroup.class).scope().cpuset());
    }

    @Test
    void undefinedMembersGetNoSubgroupAndNoShare() throws Exception {
        Scope scope = Scope.of(cores64);
        List<Outcome> out = Members.run(TaskGroup.create(8), m ->
                m.split(scope, m.rank() % 2 == 0 ? TaskGroup.UNDEFINED : 5, 0));
        for (Outcome o : out) {
            Optional<?> result = o.value(Optional.class);
            if (o.rank() % 2 == 0) {
                assertTrue(result.isEmpty(), "rank " + o.rank());
            } else {
                Subgroup sub = (Subgroup) result.orElseThrow();
                assertEquals(4, sub.size());
                assertEquals(o.rank() / 2, sub.rank());
                assertEquals(scope.cpuset(), sub.scope().cpuset()); // the only class takes it all
            }
        }
    }

    @Test
    void subgroupsSplitAgainInsideTheirShare() throws Exception {
        Scope scope = Scope.of(TestTopologies.machine(1, 8, 1));
        List<Outcome> out = Members.run(TaskGroup.create(8), m -> {
            Subgroup half = m.split(scope, m.rank() / 4, 0).orElseThrow();
            return half.split(half.scope(), half.rank() / 2, 0).orElseThrow();
        });
        for (Outcome o : out) {
            Subgroup quarter = o.value(Subgroup.class);
            int first = 2 * (o.rank() / 2);
            assertEquals(CpuSet.range(first, first + 1), quarter.scope().cpuset(), "rank " + o.rank());
            assertEquals(o.rank() % 2, quarter.rank());
        }
    }

    @Test
    void barrierHoldsEveryMemberUntilAllArriveRoundAfterRound() throws Exception {
        int members = 8;
        int rounds = 200;
        AtomicInteger arrived = new AtomicInteger();
        List<Outcome> out = Members.run(TaskGroup.create(members, Duration.ofSeconds(5)), m -> {
            for (int round = 0; round < rounds; round++) {
                arrived.incrementAndGet();
                m.barrier();
                if (arrived.get() < members * (round + 1)) return "passed round " + round + " early";
            }
            return "ok";
        });
        for (Outcome o : out) assertEquals("ok", o.value(String.class));
    }

    @Test
    void memberWithInvalidArgumentsBreaksTheCollectiveForAllWithoutWaitingForTheTimeout() throws Exception {
        Scope scope = Scope.of(cores64);
        TaskGroup group = TaskGroup.create(8, Duration.ofSeconds(10));
        List<Outcome> out = Members.run(group, m -> m.split(scope, m.rank() == 2 ? -5 : 0, 0));
        for (Outcome o : out) {
            assertTrue(o.millis() < 3000, "rank " + o.rank() + " took " + o.millis() + " ms");
            if (o.rank() == 2) {
                assertInstanceOf(IllegalArgumentException.class, o.error());
                assertEquals("color must be >= 0 or TaskGroup.UNDEFINED (-1), got -5", o.error().getMessage());
            } else {
                assertInstanceOf(TaskGroupException.class, o.error(), "rank " + o.rank());
                assertTrue(o.error().getMessage().startsWith("task group of 8"), o.error().getMessage());
                assertTrue(o.error().getMessage().contains("broken by rank 2: java.lang.IllegalArgumentException: color must be"),
                        o.error().getMessage());
            }
        }
        assertTrue(group.isBroken());
    }

    @Test
    void abortBreaksTheMembersWaitingInABarrier() throws Exception {
        RuntimeException cause = new RuntimeException("disk full");
        List<Outcome> out = Members.run(TaskGroup.create(4, Duration.ofSeconds(10)), m -> {
            if (m.rank() == 3) {
                sleep(100); // let the others wait first
                m.abort(cause);
                return "aborted";
            }
            m.barrier();
            return "passed";
        });
        assertEquals("aborted", out.get(3).value(String.class));
        for (Outcome o : out.subList(0, 3)) {
            assertInstanceOf(TaskGroupException.class, o.error());
            assertEquals("task group of 4: collective barrier broken by rank 3: java.lang.RuntimeException: disk full",
                    o.error().getMessage());
            assertSame(cause, o.error().getCause());
            assertTrue(o.millis() < 3000, o.millis() + " ms");
        }
    }

    @Test
    void memberThatNeverArrivesMakesEveryOtherFailAfterTheTimeoutNamingIt() throws Exception {
        TaskGroup group = TaskGroup.create(4, Duration.ofMillis(500));
        List<Outcome> out = Members.run(group, m -> {
            if (m.rank() != 3) m.barrier();
            return null;
        });
        for (Outcome o : out.subList(0, 3)) {
            assertInstanceOf(TaskGroupException.class, o.error());
            assertEquals("task group of 4: collective barrier timed out after 500 ms waiting for ranks [3]", o.error().getMessage());
            assertTrue(o.millis() >= 450 && o.millis() < 5000, o.millis() + " ms");
        }
        assertTrue(group.isBroken());
    }

    @Test
    void brokenGroupStaysBrokenAndLaterCallsFailAtOnce() throws Exception {
        TaskGroup group = TaskGroup.create(3, Duration.ofSeconds(10));
        group.member(1).abort(new IllegalStateException("gave up"));
        List<Outcome> out = Members.run(group, m -> {
            m.barrier();
            return null;
        });
        for (Outcome o : out) {
            assertInstanceOf(TaskGroupException.class, o.error());
            assertEquals("task group of 3 broken by rank 1: java.lang.IllegalStateException: gave up", o.error().getMessage());
            assertTrue(o.millis() < 3000, o.millis() + " ms");
        }
    }

    @Test
    void membersPassingDifferentScopesAllGetAnIllegalArgumentNamingBoth() throws Exception {
        Topology t = TestTopologies.machine(1, 8, 1);
        Scope whole = Scope.of(t);
        Scope part = Scope.of(t, CpuSet.range(0, 3));
        TaskGroup group = TaskGroup.create(4, Duration.ofSeconds(10));
        List<Outcome> out = Members.run(group, m -> m.split(m.rank() == 1 ? part : whole, 0, 0));
        for (Outcome o : out) {
            assertInstanceOf(IllegalArgumentException.class, o.error(), "rank " + o.rank());
            String message = o.error().getMessage();
            assertTrue(message.contains("needs the same arguments from every member"), message);
            assertTrue(message.contains("passed scope on pus 0-3") && message.contains("passed scope on pus 0-7"), message);
        }
        // the next operation is a new one on a broken group
        assertThrows(TaskGroupException.class, () -> group.member(0).barrier());
    }

    @Test
    void membersPassingDifferentPieceCountsAllGetAnIllegalArgument() throws Exception {
        Scope scope = Scope.of(TestTopologies.machine(1, 8, 1));
        List<Outcome> out = Members.run(TaskGroup.create(3), m -> m.split(scope, m.rank() == 0 ? 2 : 3, Color.PACKED));
        for (Outcome o : out) {
            assertInstanceOf(IllegalArgumentException.class, o.error(), "rank " + o.rank());
            String message = o.error().getMessage();
            assertTrue(message.contains("in 2 pieces") && message.contains("in 3 pieces"), message);
        }
    }

    @Test
    void membersMixingColorPoliciesAllGetAnIllegalArgumentNamingThem() throws Exception {
        Scope scope = Scope.of(TestTopologies.machine(1, 8, 1));
        List<Outcome> out = Members.run(TaskGroup.create(3), m ->
                m.split(scope, 2, m.rank() == 2 ? Color.SPREAD : Color.PACKED));
        for (Outcome o : out) {
            assertInstanceOf(IllegalArgumentException.class, o.error(), "rank " + o.rank());
            assertEquals("task group of 3: collective split: members mix colors: rank 0 passed PACKED and rank 2 passed SPREAD",
                    o.error().getMessage());
        }
    }

    @Test
    void membersCallingDifferentOperationsAllFail() throws Exception {
        Scope scope = Scope.of(cores64);
        List<Outcome> out = Members.run(TaskGroup.create(2), m -> {
            if (m.rank() == 0) m.barrier();
            else m.split(scope, 0, 0);
            return null;
        });
        for (Outcome o : out) {
            assertInstanceOf(IllegalArgumentException.class, o.error(), "rank " + o.rank());
            assertTrue(o.error().getMessage().matches("task group of 2: rank \\d called \\w+ while rank \\d called \\w+"),
                    o.error().getMessage());
        }
    }

    @Test
    void twoThreadsUsingOneRankBreakTheGroup() throws Exception {
        TaskGroup group = TaskGroup.create(3, Duration.ofSeconds(10));
        TaskGroup twice = TaskGroup.create(2);
        // both threads of `twice` play rank 0 of `group`; rank 1 and 2 never come
        List<Outcome> out = Members.run(twice, m -> {
            group.member(0).barrier();
            return null;
        });
        long twiceErrors = out.stream().filter(o -> o.error() instanceof IllegalStateException).count();
        long brokenErrors = out.stream().filter(o -> o.error() instanceof TaskGroupException).count();
        assertEquals(1, twiceErrors, out.toString());
        assertEquals(1, brokenErrors, out.toString());
        assertTrue(out.stream().allMatch(o -> o.millis() < 3000), out.toString());
    }

    @Test
    void interruptedMemberBreaksTheGroupAndKeepsItsInterruptFlag() throws Exception {
        TaskGroup group = TaskGroup.create(2, Duration.ofSeconds(10));
        CountDownLatch started = new CountDownLatch(1);
        Throwable[] error = new Throwable[1];
        boolean[] flag = new boolean[1];
        Thread waiter = new Thread(() -> {
            started.countDown();
            try {
                group.member(0).barrier();
            } catch (Throwable t) {
                error[0] = t;
                flag[0] = Thread.currentThread().isInterrupted();
            }
        });
        waiter.start();
        started.await();
        sleep(100);
        waiter.interrupt();
        waiter.join(5000);
        assertInstanceOf(TaskGroupException.class, error[0]);
        assertInstanceOf(InterruptedException.class, error[0].getCause());
        assertTrue(flag[0]);
        TaskGroupException e = assertThrows(TaskGroupException.class, () -> group.member(1).barrier());
        assertEquals("task group of 2: collective barrier broken by rank 0: java.lang.InterruptedException", e.getMessage());
    }

    @Test
    void creationAndRanksAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> TaskGroup.create(0));
        assertThrows(IllegalArgumentException.class, () -> TaskGroup.create(2, Duration.ZERO));
        TaskGroup group = TaskGroup.create(4);
        assertEquals(Duration.ofSeconds(30), group.timeout());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> group.member(4));
        assertEquals("rank 4 is not in task group of 4", e.getMessage());
        Member m = group.member(2);
        assertSame(m, group.member(2));
        assertEquals(2, m.rank());
        assertEquals(4, m.size());
    }

    @Test
    void singleMemberGroupNeverWaits() {
        Member m = TaskGroup.create(1, Duration.ofMillis(100)).member(0);
        m.barrier();
        Subgroup sub = m.split(Scope.of(cores64), 0, 0).orElseThrow();
        assertEquals(0, sub.rank());
        assertEquals(cores64.allowed(), sub.scope().cpuset());
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
