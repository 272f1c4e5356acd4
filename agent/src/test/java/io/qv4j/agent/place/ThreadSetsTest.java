package io.qv4j.agent.place;

import io.qv4j.agent.config.ConfigFileAccess;
import io.qv4j.agent.config.Rules;
import io.qv4j.testapps.AppThreads;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which plain threads are a group's tasks, and the slot their name asks for; the registry keys of groups. */
class ThreadSetsTest {

    static ThreadSets rules(String text) throws Exception {
        return new ThreadSets(ConfigFileAccess.rules(text), false);
    }

    static final String PIPE = "rule.pipe.match.thread = pipe*\nrule.pipe.tasks = 4\n";

    @Test
    void numbersAreAsciiDecimalsOfAtMostSixDigits() {
        assertEquals(0, ThreadSets.number("0"));
        assertEquals(1, ThreadSets.number("1"));
        assertEquals(7, ThreadSets.number("007"));
        assertEquals(999_999, ThreadSets.number("999999"));
        assertEquals(-1, ThreadSets.number("1000000"));
        assertEquals(-1, ThreadSets.number("99999999999999999999"));
        assertEquals(-1, ThreadSets.number(""));
        assertEquals(-1, ThreadSets.number("+1"));
        assertEquals(-1, ThreadSets.number("-1"));
        assertEquals(-1, ThreadSets.number("1a"));
        assertEquals(-1, ThreadSets.number("\u0661\u0662"), "Arabic-Indic 12");
        assertEquals(-1, ThreadSets.number("\uFF11"), "fullwidth 1");
        assertEquals(-1, ThreadSets.number("\u0967"), "Devanagari 1");
    }

    @Test
    void theSlotIsTheNumberMinusOneAndZeroOrNoNumberAsksForNone() {
        assertEquals(0, ThreadSets.slot("1"));
        assertEquals(2, ThreadSets.slot("3"));
        assertEquals(999_998, ThreadSets.slot("999999"));
        assertEquals(-1, ThreadSets.slot("0"));
        assertEquals(-1, ThreadSets.slot("000"));
        assertEquals(-1, ThreadSets.slot(""));
        assertEquals(-1, ThreadSets.slot("1234567"));
        assertEquals(-1, ThreadSets.slot("\u0663"));
    }

    @Test
    void aRuleNamesAPlainThreadAndItsTrailingNumberGivesTheSlot() throws Exception {
        ThreadSet g = rules(PIPE).match(new Thread("pipe-2"));
        assertNotNull(g);
        assertEquals("rule:pipe:pipe", g.key());
        assertEquals("pipe", g.name());
        assertEquals("java.lang.Thread", g.type());
        assertEquals(4, g.tasks());
        assertEquals(1, g.slot());
        assertEquals("pipe", g.rule().name());
        assertSame(g.rule().policy(), g.policy());
    }

    @Test
    void oneSeparatorBeforeTheNumberIsDroppedFromTheGroupsName() throws Exception {
        ThreadSets s = rules(PIPE);
        for (String n : new String[] {"pipe-3", "pipe_3", "pipe 3", "pipe#3", "pipe3"}) {
            ThreadSet g = s.match(new Thread(n));
            assertEquals("pipe", g.name(), n);
            assertEquals(2, g.slot(), n);
        }
        assertEquals("pipe-", s.match(new Thread("pipe--3")).name());
    }

    @Test
    void withoutATrailingNumberTheThreadTakesTheLowestFreeSlotInAGroupOfItsWholeName() throws Exception {
        ThreadSet g = rules(PIPE).match(new Thread("pipe-main"));
        assertEquals("pipe-main", g.name());
        assertEquals(-1, g.slot());
    }

    @Test
    void zeroHugeAndNonAsciiNumbersAskForNoSlot() throws Exception {
        ThreadSets s = rules(PIPE);
        ThreadSet zero = s.match(new Thread("pipe-0"));
        assertEquals("pipe", zero.name());
        assertEquals(-1, zero.slot());
        ThreadSet huge = s.match(new Thread("pipe-12345678901234567890"));
        assertEquals("pipe", huge.name(), "a long number is still the name's number, not its prefix");
        assertEquals(-1, huge.slot());
        ThreadSet arabic = s.match(new Thread("pipe-\u0663"));
        assertEquals("pipe-\u0663", arabic.name(), "another script's digit is part of the name");
        assertEquals(-1, arabic.slot());
    }

    @Test
    void aNameThatIsOnlyANumberIsGroupedUnderTheRulesName() throws Exception {
        ThreadSet g = rules("rule.nums.match.thread = 4*\n").match(new Thread("42"));
        assertEquals("nums", g.name());
        assertEquals(41, g.slot());
        assertEquals(0, g.tasks(), "no tasks=: not known");
    }

    @Test
    void eachNamePrefixUnderOneRuleIsAGroupOfItsOwn() throws Exception {
        ThreadSets s = rules("rule.any.match.thread = *-?\n");
        ThreadSet io = s.match(new Thread("io-1"));
        ThreadSet pipe = s.match(new Thread("pipe-1"));
        assertEquals("rule:any:io", io.key());
        assertEquals("rule:any:pipe", pipe.key());
        assertSame(s.key(io), s.key(s.match(new Thread("io-2"))));
        assertNotSame(s.key(io), s.key(pipe));
    }

    @Test
    void threadsNoRuleNamesAreNotTaken() throws Exception {
        ThreadSets s = new ThreadSets(ConfigFileAccess.rules(PIPE), true);
        assertNull(s.match(new Thread("Thread-3")));
        assertNull(s.match(AppThreads.plain(new AppThreads.Task(), "worker-1")));
        assertNull(new ThreadSets(Rules.none(), false).match(new Thread("pipe-1")), "no rules, no recognizers: nothing");
    }

    @Test
    void aRuleOnTheClassNamesThreadsOfThatClassOnly() throws Exception {
        ThreadSets s = rules("rule.k.match.class = io.qv4j.testapps.AppThreads$Named\n");
        ThreadSet g = s.match(new AppThreads.Named("k-2"));
        assertNotNull(g);
        assertEquals("io.qv4j.testapps.AppThreads$Named", g.type());
        assertEquals(1, g.slot());
        assertNull(s.match(new Thread("k-2")));
    }

    @Test
    void rulesOnTheCreatorOrTheCommonPoolNameNoPlainThread() throws Exception {
        assertNull(rules("rule.c.match.thread = pipe-*\nrule.c.match.creator = com.example.*\n").match(new Thread("pipe-1")));
        assertNull(rules("rule.c.match.thread = pipe-*\nrule.c.common-pool = on\n").match(new Thread("pipe-1")));
    }

    /** A thread class of the agent's own package: never taken, whatever the rules say. */
    static final class OwnThread extends Thread {
        OwnThread(String name) {
            super(name);
        }
    }

    @Test
    void theAgentsAndTheJdksThreadsAreNeverTakenEvenByARuleOnEveryName() throws Exception {
        ThreadSets s = new ThreadSets(ConfigFileAccess.rules("rule.all.match.thread = *\n"), true);
        assertNotNull(s.match(new Thread("app-1")), "the rule does take plain threads");
        assertNull(s.match(new OwnThread("app-1")));
        ForkJoinPool fj = new ForkJoinPool(1);
        try {
            assertNull(s.match(ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(fj)));
        } finally {
            fj.shutdown();
        }
        assertNull(s.match(AppThreads.plain(() -> { }, "app-2")), "a task of the agent's classes (this test's lambda)");
    }

    @Test
    void anApplicationsForkJoinWorkerClassIsLeftToThePoolHooksEvenWhenARuleNamesIt() throws Exception {
        ThreadSets s = rules(PIPE);
        ForkJoinPool fj = new ForkJoinPool(1);
        try {
            Thread w = new AppThreads.Worker(fj);
            w.setName("pipe-1");
            assertNull(s.match(w), "JVMTI's thread events see it start; the fork-join hooks place it");
            assertNotNull(s.match(new AppThreads.Named("pipe-1")), "the same name on another subclass of Thread is taken");
        } finally {
            fj.shutdown();
        }
    }

    @Test
    void poolWorkersAreToldFromPlainThreadsByTheirClassOrTheirTask() throws Exception {
        ForkJoinPool fj = new ForkJoinPool(1);
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Thread> made = new AtomicReference<>();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = AppThreads.plain(r, "pipe-1");
            made.set(t);
            return t;
        });
        try {
            assertTrue(ThreadSets.poolWorker(ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(fj)));
            assertTrue(ThreadSets.poolWorker(new AppThreads.Worker(fj)), "the application's own fork-join worker class");
            pool.execute(started::countDown);
            started.await();
            assertTrue(ThreadSets.poolWorker(made.get()), "a ThreadPoolExecutor's worker, by its task");
            assertFalse(ThreadSets.poolWorker(AppThreads.plain(new AppThreads.Task(), "pipe-1")));
            assertFalse(ThreadSets.poolWorker(new AppThreads.Named("pipe-1")));
        } finally {
            fj.shutdown();
            pool.shutdown();
        }
    }

    @Test
    void aJdkPoolsWorkerIsLeftToThePoolHooksEvenWhenARuleNamesIt() throws Exception {
        ThreadSets s = rules(PIPE);
        AtomicReference<Thread> made = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = AppThreads.plain(r, "pipe-1");
            made.set(t);
            return t;
        });
        try {
            pool.execute(started::countDown);
            started.await();
            assertNotNull(ThreadTask.of(made.get()), "the worker's task is readable");
            assertNull(s.match(made.get()));
            assertNotNull(s.match(AppThreads.plain(new AppThreads.Task(), "pipe-1")), "the same name on a plain thread is taken");
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void aGroupsKeyIsOneInstanceForTheJvmsLifeComparedByIdentity() throws Exception {
        ThreadSets s = rules(PIPE);
        GroupKey a = s.key(s.match(new Thread("pipe-1")));
        assertSame(a, s.key(s.match(new Thread("pipe-2"))));
        assertEquals("rule:pipe:pipe", a.toString());
        GroupKey twin = new GroupKey("rule:pipe:pipe");
        assertNotEquals(a, twin, "equal only to itself: the registry keys on identity");
        assertEquals(a, a);
        assertNotSame(a, rules(PIPE).key(s.match(new Thread("pipe-1"))), "another ThreadSets holds its own keys");
    }
}
