package io.qv4j.agent.it;

import io.qv4j.agent.report.JsonReader;
import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Several JVMs on one node, through forked JVMs on JDK 17: local ranks split the node; mpirun with
 * Open MPI's binding, with --bind-to none and oversubscribed; node-wide claims between JVMs started
 * separately; OpenHFT in another JVM, both orders; hostile claims directories. The kernel's view
 * of every thread comes from /proc/self/task/TID/status, printed by the application itself.
 * This machine: 2 PUs (0, 1), one core each.
 */
class NodeIT {

    @TempDir
    Path tmp;

    static String java() throws IOException {
        return Jvm.javas().get(0).toString();
    }

    /** The agent with fixed pinning (neighbours=off): these tests expect claims' and launchers' placement, not the load's. */
    static String agent(String args) {
        return "-javaagent:" + Jvm.agentJar() + "=neighbours=off," + args;
    }

    /** The machine's PUs as this JVM is allowed them, e.g. "0-1". */
    static String allowed() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) return line.substring(18).strip();
        }
        throw new AssertionError("no Cpus_allowed_list");
    }

    static boolean twoPus() throws IOException {
        return allowed().equals("0-1");
    }

    static boolean mpirun() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, "mpirun"))) return true;
        }
        return false;
    }

    /** The allowed set as a list of PUs. */
    static List<Integer> allowedPus() throws IOException {
        List<Integer> out = new ArrayList<>();
        for (String part : allowed().split(",")) {
            String[] ab = part.split("-");
            for (int i = Integer.parseInt(ab[0]); i <= Integer.parseInt(ab[ab.length - 1]); i++) out.add(i);
        }
        return out;
    }

    /** {@code mpirun --tag-output ... java -javaagent NodeApp threads}: each rank's tasks and their cpus. */
    Map<Integer, Map<String, String>> mpi(Jvm.Result[] out, String... mpiArgs) throws Exception {
        return mpiWith(out, "", mpiArgs);
    }

    /** As {@link #mpi(Jvm.Result[], String...)} with more agent options ({@code ,}-separated, after the claims directory). */
    Map<Integer, Map<String, String>> mpiWith(Jvm.Result[] out, String agentArgs, String... mpiArgs) throws Exception {
        return mpiApp(out, agentArgs, List.of("threads"), mpiArgs);
    }

    Map<Integer, Map<String, String>> mpiApp(Jvm.Result[] out, String agentArgs, List<String> app, String... mpiArgs) throws Exception {
        Assumptions.assumeTrue(mpirun(), "mpirun not installed (Debian: apt-get install openmpi-bin): skipping the Open MPI tests");
        List<String> cmd = new ArrayList<>(List.of("mpirun", "--allow-run-as-root", "--tag-output"));
        cmd.addAll(List.of(mpiArgs));
        Path javatmp = Files.createDirectories(tmp.resolve("javatmp")); // OpenHFT's lock files: away from other tests' JVMs
        cmd.addAll(List.of(java(), "-Djava.io.tmpdir=" + javatmp, agent("claims-dir=" + tmp.resolve("claims") + agentArgs),
                "-cp", "target/test-classes", "io.qv4j.testapps.NodeApp"));
        cmd.addAll(app);
        Jvm.Result r = Jvm.run(cmd);
        out[0] = r;
        assertEquals(0, r.exitCode(), r.toString());
        Map<Integer, Map<String, String>> ranks = new TreeMap<>();
        for (String line : r.stdout().split("\n")) {
            // [1,0]<stdout>:task GC_Thread#0 tid=123 cpus=0
            int comma = line.indexOf(','), close = line.indexOf(']');
            if (!line.startsWith("[") || comma < 0 || close < 0 || !line.contains(":task ")) continue;
            int rank = Integer.parseInt(line.substring(comma + 1, close));
            String[] w = line.substring(line.indexOf(":task ") + 6).split(" ");
            ranks.computeIfAbsent(rank, k -> new TreeMap<>()).put(w[0] + "/" + w[1], w[2].substring(5));
        }
        return ranks;
    }

    static final String WORKER = "pool-1-thread-1";

    /** The tasks of a rank other than its pool's worker: the JVM's own threads (main, GC, JIT, ...). */
    static Map<String, String> jvmThreads(Map<String, String> tasks) {
        Map<String, String> out = new TreeMap<>(tasks);
        out.keySet().removeIf(k -> k.startsWith(WORKER + "/"));
        return out;
    }

    static String worker(Map<String, String> tasks) {
        return tasks.entrySet().stream().filter(e -> e.getKey().startsWith(WORKER + "/")).map(Map.Entry::getValue).findFirst()
                .orElseThrow(() -> new AssertionError("no worker in " + tasks));
    }

    /** Each rank's tasks, the ranks started one after the other with Open MPI's variables (no binding policy): NodeApp threads. */
    Map<Integer, Map<String, String>> ranksByEnv(int size) throws Exception {
        return ranksByEnv(size, "", new TreeMap<>());
    }

    /**
     * As {@link #ranksByEnv(int)} with more agent options ({@code ,}-separated, after the claims
     * directory), each rank's {@code main=N worker=N} (its processor counts) put in {@code processors}.
     */
    Map<Integer, Map<String, String>> ranksByEnv(int size, String agentArgs, Map<Integer, String> processors) throws Exception {
        Map<Integer, Map<String, String>> ranks = new TreeMap<>();
        for (int rank = 0; rank < size; rank++) {
            Jvm.Result r = Jvm.run(List.of("env", "OMPI_COMM_WORLD_LOCAL_RANK=" + rank, "OMPI_COMM_WORLD_LOCAL_SIZE=" + size, java(),
                    "-Djava.io.tmpdir=" + Files.createDirectories(tmp.resolve("javatmp")), agent("claims-dir=" + tmp.resolve("claims") + agentArgs),
                    "-cp", "target/test-classes", "io.qv4j.testapps.NodeApp", "threads"));
            assertEquals(0, r.exitCode(), r.toString());
            Map<String, String> tasks = new TreeMap<>();
            for (String line : r.stdout().split("\n")) {
                if (line.startsWith("processors ")) processors.put(rank, line.substring(11));
                if (!line.startsWith("task ")) continue;
                String[] w = line.substring(5).split(" ");
                tasks.put(w[0] + "/" + w[1], w[2].substring(5));
            }
            ranks.put(rank, tasks);
        }
        return ranks;
    }

    @Test
    void localRanksSplitTheNodeAndBindEveryThread() throws Exception {
        Assumptions.assumeTrue(allowedPus().size() >= 2, "needs 2 PUs");
        Map<Integer, Map<String, String>> ranks = ranksByEnv(2);
        for (int rank = 0; rank < 2; rank++) {
            Map<String, String> tasks = ranks.get(rank);
            assertTrue(tasks.keySet().stream().anyMatch(k -> k.startsWith("GC_Thread")), "GC threads listed: " + tasks);
            assertTrue(tasks.keySet().stream().anyMatch(k -> k.startsWith("C2_CompilerThre") || k.startsWith("C1_CompilerThre")), "JIT threads listed: " + tasks);
            assertEquals(1, new TreeSet<>(tasks.values()).size(), "every thread of rank " + rank + " in one scope: " + tasks);
        }
        String s0 = ranks.get(0).values().iterator().next(), s1 = ranks.get(1).values().iterator().next();
        assertNotEquals(s0, s1, "ranks get different pieces");
        if (twoPus()) {
            assertEquals("0", s0, "rank 0 on PU 0: " + ranks.get(0));
            assertEquals("1", s1, "rank 1 on PU 1: " + ranks.get(1));
        }
    }

    @Test
    void mpirunBindToNoneIsTheUsersOffSwitchAndPoolsStillAvoidEachOther() throws Exception {
        List<Integer> pus = allowedPus();
        Assumptions.assumeTrue(pus.size() >= 2, "needs 2 PUs");
        Jvm.Result[] r = new Jvm.Result[1];
        // both ranks alive together (else a rank that ended has no claims left to avoid)
        Map<Integer, Map<String, String>> ranks = mpiApp(r, ",claims=node,verbose=true", List.of("threads-together", tmp.resolve("placed").toString(), "2"),
                "--bind-to", "none", "-np", "2");
        assertEquals(2, ranks.size(), r[0].toString());
        for (int rank = 0; rank < 2; rank++) {
            Map<String, String> jvm = jvmThreads(ranks.get(rank));
            assertTrue(jvm.keySet().stream().anyMatch(k -> k.startsWith("GC_Thread")), "GC threads listed: " + jvm);
            assertEquals(Set1.of(allowed()), new TreeSet<>(jvm.values()), "no whole-process split, rank " + rank + ": " + jvm);
            assertTrue(r[0].stderr().contains("local rank " + rank + "/2 (Open MPI): the launcher was told not to bind"
                    + " (OMPI_MCA_hwloc_base_binding_policy=none): pus " + allowed() + ", the process is not bound"), r[0].stderr());
        }
        // the pools inside still take node-wide claims: one worker per PU
        String w0 = worker(ranks.get(0)), w1 = worker(ranks.get(1));
        assertTrue(pus.contains(Integer.parseInt(w0)) && pus.contains(Integer.parseInt(w1)), "workers pinned to one PU each: " + w0 + ", " + w1 + ": " + r[0]);
        assertNotEquals(w0, w1, "the ranks' pools land on different PUs: " + r[0]);
    }

    /** Two ranks' pools of 1 never share a PU while another is free: claims are taken before load may turn a plan, 20 launches of 20. */
    @Test
    void mpirunBindToNoneRanksPoolsTakeDifferentPusInTwentyLaunchesOfTwenty() throws Exception {
        List<Integer> pus = allowedPus();
        Assumptions.assumeTrue(pus.size() >= 2, "needs 2 PUs");
        List<String> shared = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            Jvm.Result[] r = new Jvm.Result[1];
            Map<Integer, Map<String, String>> ranks = mpiApp(r, ",claims=node", List.of("threads-together", tmp.resolve("placed-" + i).toString(), "2"),
                    "--bind-to", "none", "-np", "2");
            assertEquals(2, ranks.size(), r[0].toString());
            if (worker(ranks.get(0)).equals(worker(ranks.get(1)))) shared.add("launch " + i + ": both on " + worker(ranks.get(0)) + "\n" + r[0]);
        }
        assertTrue(shared.isEmpty(), shared.size() + " of 20 launches put both ranks' workers on one PU:\n" + String.join("\n", shared));
    }

    @Test
    void mpirunDefaultBindingIsTheScope() throws Exception {
        Assumptions.assumeTrue(twoPus(), "this check expects 2 PUs, one core each (Open MPI binds 2 ranks to cores)");
        Jvm.Result[] r = new Jvm.Result[1];
        Map<Integer, Map<String, String>> ranks = mpi(r, "-np", "2");
        for (int rank = 0; rank < 2; rank++) {
            assertEquals(Set1.of(String.valueOf(rank)), new TreeSet<>(ranks.get(rank).values()), "rank " + rank + ": " + ranks.get(rank));
            assertTrue(r[0].stderr().contains("local rank " + rank + "/2 (Open MPI): the launcher already bound this process to pus " + rank
                    + ": that is the JVM scope, not split again"), r[0].stderr());
        }
    }

    /**
     * A rank that mpirun bound (its default binding) answers availableProcessors() for its own
     * PUs, on main and on the worker the agent pinned, as it does without the agent. The worker
     * goes on one PU (split-at=pu): on a machine whose ranks are bound to more than one PU, that is
     * narrower than the rank.
     */
    @Test
    void mpirunBoundRanksCountTheirOwnPusOnMainAndOnThePinnedWorker() throws Exception {
        Jvm.Result[] r = new Jvm.Result[1];
        Map<Integer, Map<String, String>> ranks = mpiWith(r, ",split-at=pu", "-np", "2");
        Map<Integer, String> counts = new TreeMap<>();
        for (String line : r[0].stdout().split("\n")) {
            int comma = line.indexOf(','), close = line.indexOf(']');
            if (line.startsWith("[") && comma > 0 && close > comma && line.contains(":processors ")) {
                counts.put(Integer.parseInt(line.substring(comma + 1, close)), line.substring(line.indexOf(":processors ") + 12));
            }
        }
        assertEquals(2, ranks.size(), r[0].toString());
        for (int rank = 0; rank < 2; rank++) {
            TreeSet<String> own = new TreeSet<>(jvmThreads(ranks.get(rank)).values());
            assertEquals(1, own.size(), "the rank's threads share its binding: " + ranks.get(rank));
            assertSameCountAtMost(CpuSet.parse(own.first()).cardinality(), counts.get(rank), "rank " + rank + " bound to pus " + own.first() + ": " + r[0]);
        }
    }

    /** A rank the agent split the node for (no launcher binding) answers its JVM scope's count, on main and on its pinned worker. */
    @Test
    void ranksTheAgentSplitCountTheirScope() throws Exception {
        Assumptions.assumeTrue(allowedPus().size() >= 2, "needs 2 PUs");
        Map<Integer, String> counts = new TreeMap<>();
        Map<Integer, Map<String, String>> ranks = ranksByEnv(2, ",split-at=pu", counts); // a worker on one PU of a larger scope
        for (int rank = 0; rank < 2; rank++) {
            TreeSet<String> scope = new TreeSet<>(ranks.get(rank).values());
            assertEquals(1, scope.size(), "every thread of rank " + rank + " in its scope: " + ranks.get(rank));
            int n = CpuSet.parse(scope.first()).cardinality();
            assertTrue(n < allowedPus().size(), "the rank got a piece of the node: " + scope);
            assertSameCountAtMost(n, counts.get(rank), "rank " + rank + " in pus " + scope.first());
        }
    }

    /**
     * {@code main=M worker=W}: the pinned worker answers what main answers, the rank's {@code pus}
     * (fewer only where a CPU quota caps them).
     */
    private static void assertSameCountAtMost(int pus, String counts, String what) {
        assertTrue(counts != null && counts.matches("main=\\d+ worker=\\d+"), what + ": " + counts);
        String[] w = counts.split("[ =]");
        int main = Integer.parseInt(w[1]);
        assertEquals(main, Integer.parseInt(w[3]), "the worker answers as main: " + what);
        assertTrue(main >= 1 && main <= pus, "main answers the rank's " + pus + " PUs: " + what + ": " + counts);
    }

    @Test
    void mpirunOversubscribedLeavesRanksUnbound() throws Exception {
        int pus = allowedPus().size();
        Assumptions.assumeTrue(pus < 4, "4 ranks oversubscribe fewer than 4 PUs; this machine allows " + allowed());
        Jvm.Result[] r = new Jvm.Result[1];
        Map<Integer, Map<String, String>> ranks = mpi(r, "--oversubscribe", "-np", "4");
        assertEquals(4, ranks.size(), r[0].toString());
        for (int rank = 0; rank < 4; rank++) {
            Map<String, String> jvm = jvmThreads(ranks.get(rank));
            assertEquals(Set1.of(allowed()), new TreeSet<>(jvm.values()), "rank " + rank + " unbound: " + jvm);
            String msg = "local rank " + rank + "/4 (Open MPI): 4 local ranks on " + pus + " PUs (oversubscribed): this process is left unbound"
                    + " (JVM scope: all allowed pus " + allowed() + ")";
            assertEquals(1, r[0].stderr().split(java.util.regex.Pattern.quote(msg), -1).length - 1, "one message for rank " + rank + ": " + r[0].stderr());
        }
    }

    /** A small TreeSet of strings (java.util.Set.of is unordered for the message). */
    static final class Set1 {
        static TreeSet<String> of(String... s) {
            return new TreeSet<>(List.of(s));
        }
    }

    // ---- claims -------------------------------------------------------------------------------

    /** A JVM that keeps running until its stdin closes; its worker's line already read. */
    record Held(Process process, String cpus, Path stderr) {
        void close() throws Exception {
            process.getOutputStream().close();
            process.waitFor(20, TimeUnit.SECONDS);
            process.destroyForcibly();
        }
    }

    Held hold(List<String> jvmArgs, String... appArgs) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java()));
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-cp", classpath(), "io.qv4j.testapps.NodeApp"));
        cmd.addAll(List.of(appArgs));
        Path err = Files.createTempFile(tmp, "stderr", ".txt");
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = in.readLine();
        if (line == null) {
            p.waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("no output from " + cmd + ": " + Files.readString(err));
        }
        String cpus = line.contains("cpus=") ? line.substring(line.indexOf("cpus=") + 5) : line;
        return new Held(p, cpus, err);
    }

    /** The test classes plus the jars of OpenHFT affinity, JNA and slf4j (the plain, unshaded classes). */
    static String classpath() throws Exception {
        List<String> cp = new ArrayList<>(List.of("target/test-classes"));
        for (String c : List.of("net.openhft.affinity.AffinityLock", "com.sun.jna.Native", "com.sun.jna.platform.win32.Kernel32", "org.slf4j.Logger")) {
            try {
                cp.add(Path.of(Class.forName(c, false, NodeIT.class.getClassLoader()).getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
            } catch (ClassNotFoundException e) {
                // not needed by every test
            }
        }
        return String.join(File.pathSeparator, cp);
    }

    @Test
    void separateJvmsClaimDifferentPusAndAKilledJvmsClaimsVanish() throws Exception {
        Assumptions.assumeTrue(twoPus(), "this check expects 2 PUs, one core each");
        Path dir = tmp.resolve("claims");
        List<String> args = List.of("-Djava.io.tmpdir=" + Files.createDirectories(tmp.resolve("javatmp")),
                agent("split-at=core,color=packed,claims=node,claims-dir=" + dir));
        Held a = hold(args, "hold");
        Held b = null, c = null;
        try {
            b = hold(args, "hold");
            assertEquals("0", a.cpus(), "first JVM: " + Files.readString(a.stderr()));
            assertEquals("1", b.cpus(), "second JVM avoids the first one's PU: " + Files.readString(b.stderr()));
            a.process().destroyForcibly(); // SIGKILL: no shutdown hook, the OS drops the lock
            assertTrue(a.process().waitFor(20, TimeUnit.SECONDS));
            assertTrue(Files.exists(dir.resolve("pu-0.lock")), "the stale file stays");
            c = hold(args, "hold");
            assertEquals("0", c.cpus(), "third JVM takes the freed PU: " + Files.readString(c.stderr()));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
        } finally {
            a.close();
            if (b != null) b.close();
            if (c != null) c.close();
        }
    }

    @Test
    void aJvmWhoseLockFilesACleanerDeletedClaimsThemAgainAndANewJvmAvoidsItsPus() throws Exception {
        Assumptions.assumeTrue(allowedPus().size() >= 2, "needs 2 PUs: with one there is nowhere else to go");
        Path dir = tmp.resolve("claims");
        Path javatmp = Files.createDirectories(tmp.resolve("javatmp"));
        List<String> args = List.of("-Djava.io.tmpdir=" + javatmp,
                agent("split-at=core,color=packed,claims=node,claims-dir=" + dir + ",claims-refresh=200ms"));
        Held a = hold(args, "hold");
        Held b = null;
        try {
            String aPus = LiveIT.kernel(a.process().pid(), WORKER).get(WORKER);
            assertEquals(a.cpus(), aPus, "the worker's own view and the kernel's agree: " + Files.readString(a.stderr()));
            // what a cleaner of /tmp does to files nobody writes: every lock file goes, qv4j's and OpenHFT's
            List<Path> deleted = new ArrayList<>();
            for (Path d : List.of(dir, javatmp)) {
                try (var s = Files.list(d)) {
                    for (Path f : (Iterable<Path>) s::iterator) if (f.getFileName().toString().endsWith(".lock")) deleted.add(f);
                }
            }
            assertFalse(deleted.isEmpty(), "A holds lock files");
            for (Path f : deleted) Files.delete(f);
            // A notices at its next refresh and claims its PUs again (waited for up to 10 s; the old agent never does)
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < end && !deleted.stream().allMatch(f -> lockedBy(f, a.process().pid()))) Thread.sleep(50);
            b = hold(args, "hold");
            String bPus = LiveIT.kernel(b.process().pid(), WORKER).get(WORKER);
            assertFalse(io.qv4j.topology.CpuSet.parse(aPus).intersects(io.qv4j.topology.CpuSet.parse(bPus)),
                    "B's worker on " + bPus + ", A's on " + aPus + ": " + Files.readString(a.stderr()) + Files.readString(b.stderr()));
            assertEquals(aPus, LiveIT.kernel(a.process().pid(), WORKER).get(WORKER), "A's worker stays where it was");
        } finally {
            a.close();
            if (b != null) b.close();
        }
    }

    /** Whether process {@code pid} holds a lock on the file now at {@code f} (from /proc/locks). */
    static boolean lockedBy(Path f, long pid) {
        try {
            if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) return false;
            String key = lockKey(f);
            return Files.readAllLines(Path.of("/proc/locks")).stream().anyMatch(l -> l.contains(key) && l.contains(" " + pid + " "));
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void openHftLockOfAnotherJvmCountsAsAClaim() throws Exception {
        Assumptions.assumeTrue(twoPus(), "this check expects 2 PUs");
        Path tmpdir = Files.createDirectories(tmp.resolve("javatmp"));
        Held h = hold(List.of("-Djava.io.tmpdir=" + tmpdir), "openhft", "1");
        try {
            assertEquals("locked 1", "locked " + h.cpus().replace("locked ", ""), Files.readString(h.stderr()));
            assertTrue(Files.exists(tmpdir.resolve("cpu-1.lock")), "OpenHFT's lock file");
            String before = Files.readString(Path.of("/proc/locks"));
            Path report = tmp.resolve("report.json");
            Jvm.Result r = Jvm.run(List.of(java(), "-Djava.io.tmpdir=" + tmpdir,
                    agent("split-at=core,color=spread,claims=node,claims-dir=" + tmp.resolve("claims") + ",report=" + report),
                    "-cp", "target/test-classes", "io.qv4j.testapps.PoolApp", "fixed", "1"));
            assertEquals(0, r.exitCode(), r.toString());
            assertTrue(r.stdout().contains("thread pool-1-thread-1 tid="), r.toString());
            assertTrue(r.stdout().strip().endsWith("cpus=0"), "worker on PU 0: " + r);
            Map<String, Object> pool = pool(report, "pool-1");
            assertEquals("0", pool.get("universe"), "planned on the PUs nobody holds: " + pool);
            assertEquals(false, pool.get("sharesPus"));
            // the holder still holds its lock: the agent never opened (and so never released) the file
            String key = lockKey(tmpdir.resolve("cpu-1.lock"));
            assertTrue(before.contains(key), before);
            assertTrue(Files.readString(Path.of("/proc/locks")).contains(key));
            // control: without the holder the same JVM plans on both PUs
        } finally {
            h.close();
        }
        Path report = tmp.resolve("report2.json");
        Jvm.Result r = Jvm.run(List.of(java(), "-Djava.io.tmpdir=" + tmpdir,
                agent("split-at=core,color=spread,report=" + report), "-cp", "target/test-classes", "io.qv4j.testapps.PoolApp", "fixed", "1"));
        assertEquals(0, r.exitCode(), r.toString());
        Map<String, Object> pool = pool(report, "pool-1");
        assertEquals("0-1", pool.get("universe"), "no holder: the whole scope: " + pool);
    }

    @Test
    void openHftInAnotherJvmSteersAroundOurWorker() throws Exception {
        List<Integer> pus = allowedPus();
        Assumptions.assumeTrue(pus.size() >= 2, "needs 2 PUs: with one there is nothing to steer to");
        // Our JVM confined to the last allowed PU (OpenHFT never locks CPU 0, so ours must be one it would take).
        int ours = pus.get(pus.size() - 1);
        Path tmpdir = Files.createDirectories(tmp.resolve("javatmp"));
        List<String> jvm = new ArrayList<>(List.of("taskset", "-c", String.valueOf(ours), java(), "-Djava.io.tmpdir=" + tmpdir,
                agent("claims=node,claims-dir=" + tmp.resolve("claims"))));
        List<String> cmd = new ArrayList<>(jvm);
        cmd.addAll(List.of("-cp", classpath(), "io.qv4j.testapps.NodeApp", "hold"));
        Path err = Files.createTempFile(tmp, "stderr", ".txt");
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        try {
            String line = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertTrue(line != null && line.contains("cpus="), "holder: " + line + " " + Files.readString(err));
            assertEquals(String.valueOf(ours), line.substring(line.indexOf("cpus=") + 5), "our worker: " + Files.readString(err));
            Path f = tmpdir.resolve("cpu-" + ours + ".lock");
            assertTrue(Files.readString(Path.of("/proc/locks")).contains(lockKey(f)), "OpenHFT's lock file of our PU is locked");
            Jvm.Result r = Jvm.run(List.of(java(), "-Djava.io.tmpdir=" + tmpdir, "-cp", classpath(), "io.qv4j.testapps.NodeApp", "openhft-any"));
            assertEquals(0, r.exitCode(), r.toString());
            String got = r.stdout().strip();
            assertTrue(got.startsWith("locked "), r.toString());
            assertNotEquals("locked " + ours, got, "OpenHFT took our worker's PU: " + r);
            if (pus.equals(List.of(0, 1))) assertEquals("locked none", got, "CPU 0 is never OpenHFT's, CPU 1 is ours: " + r);
        } finally {
            p.getOutputStream().close();
            p.waitFor(20, TimeUnit.SECONDS);
            p.destroyForcibly();
        }
        assertFalse(Files.exists(tmpdir.resolve("cpu-" + ours + ".lock")), "our OpenHFT-side lock file is removed at a normal exit");
        // control: with our JVM gone, OpenHFT takes that PU
        if (pus.equals(List.of(0, 1))) {
            Jvm.Result r = Jvm.run(List.of(java(), "-Djava.io.tmpdir=" + tmpdir, "-cp", classpath(), "io.qv4j.testapps.NodeApp", "openhft-any"));
            assertEquals("locked 1", r.stdout().strip(), r.toString());
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> pool(Path report, String name) throws IOException {
        for (Object p : (List<Object>) ((Map<String, Object>) JsonReader.parse(Files.readString(report))).get("pools")) {
            if (name.equals(((Map<String, Object>) p).get("name"))) return (Map<String, Object>) p;
        }
        throw new AssertionError("no pool " + name + " in " + Files.readString(report));
    }

    static String lockKey(Path f) throws IOException {
        long dev = ((Number) Files.getAttribute(f, "unix:dev")).longValue();
        long ino = ((Number) Files.getAttribute(f, "unix:ino")).longValue();
        return String.format(" %02x:%02x:%d ", ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL), (dev & 0xff) | ((dev >>> 12) & ~0xffL), ino);
    }

    // ---- hostile claims directories ------------------------------------------------------------

    Jvm.Result claimsRun(Path dir) throws Exception {
        return Jvm.run(List.of(java(), agent("claims=node,claims-dir=" + dir), "-cp", "target/test-classes",
                "io.qv4j.testapps.PoolApp", "fixed", "1"));
    }

    static void refusedAndRan(Jvm.Result r, Path dir, String why) {
        assertEquals(0, r.exitCode(), r.toString());
        assertTrue(r.stdout().contains("thread pool-1-thread-1 tid="), "the application ran: " + r);
        assertTrue(r.stderr().contains("qv: claims directory " + dir + " refused: " + why), r.stderr());
        assertTrue(r.stderr().contains("; node-wide claims off (claims-dir= names another)"), r.stderr());
    }

    @Test
    void plantedSymlinkIsRefusedAndItsTargetUntouched() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("claims"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path target = tmp.resolve("passwd-copy");
        Files.writeString(target, "root:x:0:0:root:/root:/bin/bash\n");
        Files.setLastModifiedTime(target, FileTime.fromMillis(1_000_000_000_000L));
        for (int pu = 0; pu < 2; pu++) Files.createSymbolicLink(dir.resolve("pu-" + pu + ".lock"), target);
        Jvm.Result r = claimsRun(dir);
        refusedAndRan(r, dir, "it holds a symbolic link pu-");
        assertEquals("root:x:0:0:root:/root:/bin/bash\n", Files.readString(target));
        assertEquals(FileTime.fromMillis(1_000_000_000_000L), Files.getLastModifiedTime(target));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(target)));
        assertTrue(Files.isSymbolicLink(dir.resolve("pu-0.lock")));
    }

    @Test
    void symlinkedDirectoryIsRefused() throws Exception {
        Path real = Files.createDirectory(tmp.resolve("real"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path dir = Files.createSymbolicLink(tmp.resolve("claims"), real);
        refusedAndRan(claimsRun(dir), dir, "it is a symbolic link");
        try (var s = Files.list(real)) {
            assertEquals(0, s.count(), "nothing made behind the link");
        }
    }

    @Test
    void worldWritableDirectoryIsRefused() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("claims"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        refusedAndRan(claimsRun(dir), dir, "it is writable by group or others (rwxrwxrwx)");
        try (var s = Files.list(dir)) {
            assertEquals(0, s.count(), "no lock file made");
        }
    }

    @Test
    void directoryOfAnotherUserIsRefused() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "needs root to chown the directory to nobody");
        Path dir = Files.createDirectory(tmp.resolve("claims"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Process chown = new ProcessBuilder("chown", "nobody", dir.toString()).inheritIO().start();
        Assumptions.assumeTrue(chown.waitFor() == 0, "chown nobody failed");
        Jvm.Result r = claimsRun(dir);
        refusedAndRan(r, dir, "it belongs to uid ");
        try (var s = Files.list(dir)) {
            assertEquals(0, s.count(), "no lock file made");
        }
        assertFalse(Files.isSymbolicLink(dir));
        assertTrue(Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS));
    }
}
