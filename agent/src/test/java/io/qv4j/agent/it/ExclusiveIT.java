package io.qv4j.agent.it;

import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code exclusive = true} in the kernel's view (DESIGN.md §7.2): the latency issue's application
 * ({@code ExclusiveApp}: a plain thread, a CPU-bound pool of one worker per PU, a single-thread
 * {@code critical-loop} that starts a thread of its own) with a rule making the critical loop
 * exclusive. One second in, the app prints every thread's mask; what is expected is derived from
 * the allowed set the test runs under (its cores, from {@code topology}).
 */
class ExclusiveIT {

    /** One line of the app: a kernel thread, its name (blanks as '_') and mask. */
    record Task(long tid, String name, CpuSet cpus) {
    }

    static List<Path> javas() throws Exception {
        return Jvm.javas();
    }

    static Path rules(Path dir, String pattern) throws Exception {
        Path f = dir.resolve("qv.properties");
        Files.writeString(f, "rule.critical.match.thread = " + pattern + "\nrule.critical.exclusive = true\n");
        return f;
    }

    static Jvm.App run(Path java, List<String> prefix, String agentArgs, String... appArgs) throws Exception {
        Jvm.App r = Jvm.app(java, prefix, List.of(), agentArgs, List.of("target/test-classes"), "io.qv4j.testapps.ExclusiveApp", Set.of(), appArgs);
        assertEquals(0, r.result().exitCode(), r.result().toString());
        return r;
    }

    static List<Task> tasks(Jvm.App r) {
        List<Task> out = new ArrayList<>();
        for (String line : r.result().stdout().split("\n")) {
            String[] w = line.split(" ");
            if (w.length == 4 && w[0].equals("task") && w[3].startsWith("cpus=")) out.add(new Task(Long.parseLong(w[1]), w[2], CpuSet.parse(w[3].substring(5))));
        }
        assertFalse(out.isEmpty(), r.result().toString());
        return out;
    }

    /**
     * The process's first thread: the java launcher's, which only waits for the JVM to end. Its
     * mask is the process's ({@code taskset -p}), left as it is.
     */
    static long pid(Jvm.App r) {
        for (String line : r.result().stdout().split("\n")) if (line.startsWith("jvm pid=")) return Long.parseLong(line.substring(8).strip());
        throw new AssertionError("no pid line: " + r.result());
    }

    static Task named(List<Task> tasks, String name) {
        for (Task t : tasks) if (t.name().equals(name)) return t;
        throw new AssertionError("no thread " + name + " in " + tasks);
    }

    /** Whether the kernel name is one of the JVM's own threads (GC, JIT, VM; the agent's list). */
    static boolean vmThread(String name) {
        return io.qv4j.agent.place.ExclusiveRoomAccess.vmThreadName(name.replace('_', ' '));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("javas")
    void oneSecondInTheCriticalWorkerIsAloneOnAWholeCoreOfItsOwn(Path java, @TempDir Path dir) throws Exception {
        Allowed where = Allowed.unrestricted();
        assumeTrue(where.cores().size() >= 2, "one core: see exclusiveOnOnePuIsRefused");
        Jvm.App r = run(java, List.of(), "config=" + rules(dir, "critical-loop*"));
        List<Task> tasks = tasks(r);
        CpuSet mine = named(tasks, "critical-loop-0").cpus();
        assertTrue(where.cores().stream().map(CpuSet::parse).anyMatch(mine::equals), "a whole core of " + where.cores() + ": " + mine + "\n" + r.result());
        List<String> intruders = new ArrayList<>();
        for (Task t : tasks) if (!t.name().equals("critical-loop-0") && t.tid() != pid(r) && t.cpus().intersects(mine)) intruders.add(t.toString());
        assertEquals(List.of(), intruders, "threads on the critical core " + mine + " (the JVM's own too: exclusive-vm-threads=apart)\n" + r.result());
        assertTrue(tasks.stream().anyMatch(t -> vmThread(t.name())), "the JVM's own threads are seen: " + tasks);
        for (String name : List.of("plain", "critical-child", "batch-worker-0")) assertFalse(named(tasks, name).cpus().intersects(mine), name);
        assertTrue(r.result().stderr().lines().noneMatch(l -> l.contains("refused")), r.result().stderr());
        // the report at exit says so (status, the MXBean and JFR read the same); the pool has ended, its cores are given back
        java.util.Map<?, ?> pool = ((List<?>) r.report().get("pools")).stream().map(o -> (java.util.Map<?, ?>) o)
                .filter(o -> "critical-loop".equals(o.get("name"))).findFirst().orElseThrow();
        assertEquals(true, pool.get("exclusive"), pool.toString());
        assertEquals(mine.toString(), pool.get("scope"), pool.toString());
        java.util.Map<?, ?> agent = (java.util.Map<?, ?>) r.report().get("agent");
        assertEquals(null, agent.get("exclusive"), agent.toString());
        assertEquals("apart", agent.get("exclusiveVmThreads"));
    }

    @Test
    void withShareOnlyTheApplicationsThreadsAreKeptOffAndTheJvmsOwnKeepTheirMasks(@TempDir Path dir) throws Exception {
        Allowed where = Allowed.unrestricted();
        assumeTrue(where.cores().size() >= 2, "needs 2 cores");
        Jvm.App r = run(Jvm.javas().get(0), List.of(), "exclusive-vm-threads=share,config=" + rules(dir, "critical-loop*"));
        List<Task> tasks = tasks(r);
        CpuSet mine = named(tasks, "critical-loop-0").cpus();
        List<String> intruders = new ArrayList<>();
        boolean vmThere = false;
        for (Task t : tasks) {
            if (t.name().equals("critical-loop-0") || t.tid() == pid(r)) continue;
            if (vmThread(t.name())) vmThere |= t.cpus().intersects(mine);
            else if (t.cpus().intersects(mine)) intruders.add(t.toString());
        }
        assertEquals(List.of(), intruders, "application threads on the critical core " + mine + "\n" + r.result());
        assertTrue(vmThere, "the JVM's own threads keep the JVM scope: " + tasks);
    }

    @Test
    void exclusiveOnOnePuIsRefusedWithOneLineAndTheAppRunsAsWithoutIt(@TempDir Path dir) throws Exception {
        Allowed where = Allowed.unrestricted();
        List<String> prefix = where.pus().size() >= 2 && Files.isExecutable(Path.of("/usr/bin/taskset"))
                ? List.of("taskset", "-c", where.pus().get(0)) : List.of();
        Jvm.App r = run(Jvm.javas().get(0), prefix, "config=" + rules(dir, "critical-loop*"));
        assertEquals(1, r.result().stderr().lines().filter(l -> l.contains("exclusive=true refused")).count(), r.result().stderr());
        assertTrue(r.result().stderr().contains("pool critical-loop: exclusive=true refused: it would leave the rest of the JVM 0 PUs"),
                r.result().stderr());
        assertTrue(r.result().stdout().contains("task "), r.result().toString());
    }

    @Test
    void aPoolWantingMoreCoresThanAreFreeIsRefusedWithOneLine(@TempDir Path dir) throws Exception {
        Allowed where = Allowed.unrestricted();
        int workers = where.cores().size() + 1;
        Jvm.App r = run(Jvm.javas().get(0), List.of(), "config=" + rules(dir, "batch-worker-*"), String.valueOf(workers));
        List<String> lines = r.result().stderr().lines().filter(l -> l.contains("exclusive=true refused")).toList();
        assertEquals(1, lines.size(), r.result().stderr());
        assertTrue(lines.get(0).contains(workers + " workers want a core each"), lines.get(0));
        assertFalse(named(tasks(r), "batch-worker-0").cpus().isEmpty());
    }

    /**
     * Two JVMs sharing claims both ask for an exclusive core: where the machine has cores enough
     * for both and a rest each, they get different ones; else the second is told no in one line.
     */
    @Test
    void twoJvmsAskingAtOnceNeverGetTheSameCore(@TempDir Path dir) throws Exception {
        Allowed where = Allowed.unrestricted();
        assumeTrue(where.pus().size() >= 2, "needs 2 PUs");
        String args = "claims-dir=" + dir.resolve("claims") + ",config=" + rules(dir, "critical-loop*");
        List<Jvm.App> two = Jvm.atOnce(List.of(() -> run(Jvm.javas().get(0), List.of(), args, "1"), () -> run(Jvm.javas().get(0), List.of(), args, "1")));
        List<CpuSet> granted = new ArrayList<>();
        int refused = 0;
        for (Jvm.App r : two) {
            if (r.result().stderr().contains("exclusive=true refused")) refused++;
            else granted.add(named(tasks(r), "critical-loop-0").cpus());
        }
        if (granted.size() == 2) assertFalse(granted.get(0).intersects(granted.get(1)), "both on " + granted);
        int cores = where.cores().size();
        // a core each, and each rest a core no other JVM claims (the first JVM's batch worker claims one too)
        if (cores >= 4) assertEquals(0, refused, two.toString());
        if (cores == 2) assertEquals(1, refused, "one core for the second and nothing left for its rest: " + two);
        if (cores == 1) assertEquals(2, refused, "no rest for either: " + two);
    }
}
