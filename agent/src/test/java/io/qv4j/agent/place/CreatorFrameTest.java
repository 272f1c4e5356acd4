package io.qv4j.agent.place;

import io.qv4j.agent.bind.NativeAffinity;
import io.qv4j.testapps.AppPools;
import io.qv4j.testapps.HookedPools;

import org.junit.jupiter.api.Test;

import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Where a pool was made, read from a stack trace: the first frame below the agent and the hook
 * class that is not one of the pool's own constructors, {@code Executors} or reflection's.
 */
class CreatorFrameTest {

    /** A pool class of the application's, made through reflection by a container. */
    static final class AppPool extends ThreadPoolExecutor {
        AppPool() {
            super(1, 1, 0, TimeUnit.SECONDS, new java.util.concurrent.LinkedBlockingQueue<>());
        }
    }

    private static StackTraceElement frame(String cls, String method) {
        return new StackTraceElement(cls, method, "F.java", 7);
    }

    @Test
    void skipsTheAgentTheHookThePoolsConstructorsAndReflection() {
        StackTraceElement[] trace = {
            frame("io.qv4j.agent.place.Eligibility", "creator"),
            frame("io.qv4j.agent.inst.Dispatcher", "accept"),
            frame("java.util.concurrent.QvHooks", "poolCreated"),
            frame("java.util.concurrent.ThreadPoolExecutor", "<init>"),
            frame(AppPool.class.getName(), "<init>"),
            frame("jdk.internal.reflect.DirectConstructorHandleAccessor", "newInstance"),
            frame("java.lang.reflect.Constructor", "newInstance"),
            frame("com.acme.Container", "make"),
            frame("com.acme.Main", "main"),
        };
        StackTraceElement f = Eligibility.creatorFrame(trace, AppPool.class);
        assertEquals("com.acme.Container", f.getClassName());
        assertEquals("make", f.getMethodName());
    }

    @Test
    void skipsExecutorsButNotTheConstructorOfAClassThatIsNoPool() {
        StackTraceElement[] trace = {
            frame("java.util.concurrent.QvHooks", "poolCreated"),
            frame("java.util.concurrent.ThreadPoolExecutor", "<init>"),
            frame("java.util.concurrent.Executors", "newFixedThreadPool"),
            frame("com.acme.Service", "<init>"),
            frame("com.acme.Main", "main"),
        };
        assertEquals("com.acme.Service", Eligibility.creatorFrame(trace, ThreadPoolExecutor.class).getClassName());
    }

    @Test
    void aPoolTheAgentItselfMakesHasTheAgentAsItsCreator() {
        // only the agent's frames above the hook are skipped: one below the pool's constructor made it
        StackTraceElement[] trace = {
            frame("io.qv4j.agent.place.Eligibility", "creator"),
            frame("java.util.concurrent.QvHooks", "poolCreated"),
            frame("java.util.concurrent.ThreadPoolExecutor", "<init>"),
            frame("io.qv4j.agent.node.KeepFresh", "start"),
            frame("com.acme.Main", "main"),
        };
        StackTraceElement f = Eligibility.creatorFrame(trace, ThreadPoolExecutor.class);
        assertEquals("io.qv4j.agent.node.KeepFresh", f.getClassName());
        assertEquals(Eligibility.Origin.AGENT, Eligibility.originOf(f.getClassName()));
    }

    @Test
    void noFrameWhenNothingQualifies() {
        StackTraceElement[] trace = {
            frame("io.qv4j.agent.place.Eligibility", "creator"),
            frame("java.util.concurrent.ThreadPoolExecutor", "<init>"),
        };
        assertNull(Eligibility.creatorFrame(trace, ThreadPoolExecutor.class));
        assertNull(Eligibility.creatorFrame(new StackTraceElement[0], ThreadPoolExecutor.class));
    }

    @Test
    void aRealPoolsCreatorIsTheApplicationMethodThatMadeIt() {
        AtomicReference<Eligibility.Creator> seen = new AtomicReference<>();
        ThreadPoolExecutor p = AppPools.fixed(1, pool -> seen.set(Eligibility.creator(pool)));
        p.shutdown();
        assertEquals("io.qv4j.testapps.AppPools#fixed", seen.get().key());
        assertEquals(Eligibility.Origin.APPLICATION, Eligibility.originOf(seen.get().className()));
    }

    @Test
    void theStackWalkerFallbackFindsTheSameFrame() {
        AtomicReference<StackTraceElement> walked = new AtomicReference<>();
        AppPools.fixed(1, pool -> walked.set(Eligibility.walked(pool.getClass()))).shutdown();
        assertEquals("io.qv4j.testapps.AppPools", walked.get().getClassName());
        assertEquals("fixed", walked.get().getMethodName());
    }

    /** The creator from the JVM's frames and from a stack trace, both read in the hook of a pool made by {@code make}. */
    private static StackTraceElement[] bothWays(Runnable make) {
        assumeTrue(NativeAffinity.load() != null, "the JNI library loads (built with a C compiler)");
        StackTraceElement[] seen = new StackTraceElement[2];
        HookedPools.hook = pool -> {
            StackTraceElement[] frames = CallSites.innermost();
            assertNotNull(frames, "the library reads the frames");
            seen[0] = Eligibility.creatorFrame(frames, pool.getClass());
            seen[1] = Eligibility.creatorFrame(new Throwable().getStackTrace(), pool.getClass());
        };
        make.run();
        return seen;
    }

    /** Both ways name the same frame, file and line: the method {@code maker} of {@link HookedPools} that made the pool. */
    private static void assertBothWaysName(String maker, Runnable make) {
        StackTraceElement[] seen = bothWays(make);
        assertEquals(HookedPools.class.getName() + "." + maker, seen[1].getClassName() + "." + seen[1].getMethodName());
        assertNotNull(seen[0]);
        assertEquals(text(seen[1]), text(seen[0]), "from the JVM's frames");
    }

    private static String text(StackTraceElement f) {
        return f.getClassName() + "." + f.getMethodName() + "(" + f.getFileName() + ":" + f.getLineNumber() + ")";
    }

    @Test
    void theJvmsFramesNameTheCreatorAsAStackTraceDoesWithItsFileAndLine() {
        assertBothWaysName("makeDirectly", HookedPools::makeDirectly);
    }

    @Test
    void theJvmsFramesSkipReflectionAndItsMethodHandlesAsAStackTraceDoes() {
        assertBothWaysName("makeByReflection", HookedPools::makeByReflection);
    }

    @Test
    void theJvmsFramesSkipALambdasHiddenFrameAsAStackTraceDoes() {
        assertBothWaysName("makeThroughAConstructorReference", HookedPools::makeThroughAConstructorReference);
    }

    @Test
    void aCallSiteIsNamedOnceAndGivenAgain() {
        StackTraceElement[] first = bothWays(HookedPools::makeDirectly);
        StackTraceElement[] again = bothWays(HookedPools::makeDirectly);
        org.junit.jupiter.api.Assertions.assertSame(first[0], again[0], "the same call site: the frame kept");
    }
}
