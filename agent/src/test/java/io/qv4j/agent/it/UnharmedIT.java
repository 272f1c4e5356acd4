package io.qv4j.agent.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The application's own choices survive the agent: threads it bound itself, its own standard
 * error, pools of virtual threads, a user with no home. Every expectation comes from the allowed
 * set the test runs under.
 */
class UnharmedIT {

    private static final String APP = "io.qv4j.testapps.UnharmedApp";

    /**
     * A one-thread pool whose factory binds its thread to the last allowed PU (where the agent
     * would put the pool's only worker on the first) keeps that binding, and the agent says so.
     */
    @Test
    void threadsTheApplicationBoundItselfStayWhereItPutThem() throws Exception {
        Allowed where = Allowed.unrestricted();
        assumeTrue(where.pus().size() >= 2, "needs two allowed PUs to tell the application's binding from the agent's, has " + where.allowed());
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/taskset")), "the application binds its thread with taskset");
        String last = where.pus().get(where.pus().size() - 1);
        for (Path java : Jvm.javas()) {
            Jvm.App r = Jvm.app(java, List.of(), List.of(), "split-at=pu,color=spread,verbose=true", List.of("target/test-classes"),
                    APP, Set.of("thread"), "selfbound", last);
            String out = java + ": " + r.result();
            assertEquals(0, r.result().exitCode(), out);
            assertEquals(Set.of("self-1"), r.cpus().keySet(), out);
            for (Map.Entry<String, String> e : r.cpus().entrySet()) assertEquals(last, e.getValue(), e.getKey() + " moved: " + out);
            assertTrue(r.result().stderr().contains("by the application: left there"), out);
        }
    }

    /**
     * A pool of two whose factory binds both threads to the same PU, the last allowed one, which
     * the agent would give only the second worker: both run there, as without the agent (a mask
     * equal to one the agent gave a sibling is the application's choice when the thread did not
     * start with it).
     */
    @Test
    void twoThreadsTheApplicationBoundToOnePuBothStayThere() throws Exception {
        Allowed where = Allowed.unrestricted();
        assumeTrue(where.pus().size() >= 2, "needs two allowed PUs to tell the application's binding from the agent's, has " + where.allowed());
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/taskset")), "the application binds its threads with taskset");
        String last = where.pus().get(where.pus().size() - 1);
        for (Path java : Jvm.javas()) {
            Jvm.App r = Jvm.app(java, List.of(), List.of(), "split-at=pu,color=packed,verbose=true", List.of("target/test-classes"),
                    APP, Set.of("thread"), "selfbound", last, "2");
            String out = java + ": " + r.result();
            assertEquals(0, r.result().exitCode(), out);
            assertEquals(Set.of("self-1", "self-2"), r.cpus().keySet(), out);
            for (Map.Entry<String, String> e : r.cpus().entrySet()) assertEquals(last, e.getValue(), e.getKey() + " moved: " + out);
        }
    }

    /**
     * Threads a pinned worker starts that the agent does not place, a plain helper thread and the
     * common pool's workers (the common pool is not pinned by default), do not keep the worker's
     * one PU, which they inherit from it: they run on the JVM's whole scope, as without the agent.
     */
    @Test
    void threadsAPinnedWorkerStartsThatTheAgentDoesNotPlaceRunOnTheWholeScope() throws Exception {
        Allowed where = Allowed.unrestricted();
        assumeTrue(where.pus().size() >= 2, "needs two allowed PUs to tell one PU from the scope, has " + where.allowed());
        for (Path java : Jvm.javas()) {
            Jvm.App r = Jvm.app(java, List.of(), List.of(), "split-at=pu,color=spread,verbose=true", List.of("target/test-classes"),
                    APP, Set.of("thread", "spawned"), "spawn");
            String out = java + ": " + r.result();
            assertEquals(0, r.result().exitCode(), out);
            assertEquals(Set.of(where.pus().get(0), where.pus().get(1)), Set.of(r.cpus().get("work-1"), r.cpus().get("work-2")), "the pool is pinned: " + out);
            assertTrue(r.cpus().keySet().containsAll(Set.of("helper-of-work-1", "helper-of-work-2")), out);
            assertTrue(r.cpus().keySet().stream().anyMatch(n -> n.startsWith("ForkJoinPool.commonPool")), "the stream used the common pool: " + out);
            for (Map.Entry<String, String> e : r.cpus().entrySet()) {
                if (!e.getKey().startsWith("work-")) assertEquals(where.allowed(), e.getValue(), e.getKey() + " kept its creator's PU: " + out);
            }
            assertTrue(r.result().stderr().contains("from a thread qv4j placed: back to the JVM scope"), out);
        }
    }

    /**
     * The application's System.err hands every write to one of its pools and waits: the agent's
     * verbose lines, written while a worker starts, go to the JVM's own standard error and never
     * through that stream (which would wait on a worker that waits on the agent).
     */
    @Test
    void verboseLinesNeverPassThroughTheApplicationsStandardError() throws Exception {
        String own = "app: standard error through a pool\n";
        for (Path java : Jvm.javas()) {
            Jvm.App r = Jvm.app(java, List.of(), List.of(), "verbose=true", List.of("target/test-classes"), APP, Set.of("thread"), "errpool");
            String out = java + ": " + r.result();
            assertEquals(0, r.result().exitCode(), out);
            assertFalse(r.result().stdout().contains("hung"), out);
            assertTrue(r.result().stdout().contains("\ndone\n"), out);
            assertTrue(r.result().stdout().contains("err-bytes " + own.length() + "\n"), "only the application's own line went through its stream: " + out);
            assertTrue(r.result().stderr().contains(own), out);
            assertTrue(r.result().stderr().contains("qv: pool "), "the agent's lines reached standard error: " + out);
        }
    }

    /** A fixed pool whose factory makes virtual threads is not a pool of workers: nothing is bound, no carrier pinned. */
    @Test
    void aPoolOfVirtualThreadsPinsNoCarrier() throws Exception {
        Path java = Jvm.atLeast(21);
        assumeTrue(java != null, "needs a JDK with virtual threads (21 or later)");
        Jvm.App r = Jvm.app(java, List.of(), List.of(), "split-at=pu,color=spread,verbose=true", List.of("target/test-classes"), APP, Set.of("carrier"), "virtualpool");
        String out = r.result().toString();
        assertEquals(0, r.result().exitCode(), out);
        assertTrue(r.result().stdout().contains("ok 1000\n"), out);
        assertTrue(r.result().stderr().contains("not pinned (its threads are virtual"), "the pool is recognised as virtual: " + out);
        assertFalse(r.cpus().isEmpty(), "carriers seen: " + out);
        String allowed = Allowed.unrestricted().allowed();
        for (Map.Entry<String, String> e : r.cpus().entrySet()) assertEquals(allowed, e.getValue(), "carrier " + e.getKey() + " pinned: " + out);
    }

    /**
     * No passwd entry (the JVM's user.home is then "?") and no HOME: the agent's files go to an
     * owner-only directory under java.io.tmpdir, nothing appears in the working directory, and
     * the pool is still bound through the native library.
     */
    @Test
    void withoutAHomeNothingIsWrittenInTheWorkingDirectory(@TempDir Path dir) throws Exception {
        Path work = Files.createDirectory(dir.resolve("work"));
        Path tmp = Files.createDirectory(dir.resolve("tmp"));
        List<String> inWork = List.of("env", "-u", "HOME", "-u", "XDG_CACHE_HOME", "sh", "-c", "cd \"$0\" && exec \"$@\"", work.toString());
        Jvm.App r = Jvm.app(Jvm.javas().get(0), inWork, List.of("-Duser.home=?", "-Djava.io.tmpdir=" + tmp), "",
                List.of(Path.of("target/test-classes").toAbsolutePath().toString()), "io.qv4j.testapps.PoolApp", Set.of("thread"), "fixed", "2");
        String out = r.result().toString();
        assertEquals(0, r.result().exitCode(), out);
        assertEquals(2, r.cpus().size(), out);
        assertEquals("native", ((Map<?, ?>) r.report().get("agent")).get("binder"), r.report().toString());
        try (Stream<Path> s = Files.list(work)) {
            assertEquals(List.of(), s.toList(), "written in the working directory");
        }
        Path cache = tmp.resolve("qv4j-" + System.getProperty("user.name"));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(cache, LinkOption.NOFOLLOW_LINKS)));
    }
}
