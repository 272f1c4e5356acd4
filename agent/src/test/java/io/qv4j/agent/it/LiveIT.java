package io.qv4j.agent.it;

import com.sun.tools.attach.VirtualMachine;
import io.qv4j.agent.report.JsonReader;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A running JVM seen and steered from outside: {@code status} (agent report beside the kernel's
 * masks), {@code attach} (options carried, errors answered), Flight Recorder events and the
 * {@code io.qv4j:type=Agent} MXBean, each against forked JVMs. This machine: PUs 0 and 1.
 */
class LiveIT {

    static List<Path> javas() throws Exception {
        return Jvm.javas();
    }

    /** A forked BusyApp: its process and PID; closing stdin ends it. */
    record Busy(Process process, long pid) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            process.getOutputStream().close();
            if (!process.waitFor(20, TimeUnit.SECONDS)) process.destroyForcibly();
        }
    }

    static Busy busy(Path java, String agentArgs, int workers) throws Exception {
        return started(java, agentArgs, "io.qv4j.testapps.BusyApp", Integer.toString(workers), "90");
    }

    /** A forked application that prints {@code ready PID} once it is ready, and ends when its stdin closes. */
    static Busy started(Path java, String agentArgs, String main, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java.toString()));
        if (!java.toString().contains("17")) cmd.add("-XX:+EnableDynamicAgentLoading");
        // fixed pinning: the tests compare the plan with the kernel's view, which the neighbours watcher may change on a busy machine
        if (agentArgs != null) cmd.add("-javaagent:" + Jvm.agentJar() + "=neighbours=off" + (agentArgs.isEmpty() ? "" : "," + agentArgs));
        cmd.addAll(List.of("-cp", "target/test-classes", main));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = r.readLine();
        if (line == null || !line.startsWith("ready ")) {
            p.destroyForcibly();
            throw new AssertionError(main + " did not start: " + line);
        }
        return new Busy(p, Long.parseLong(line.substring(6).strip()));
    }

    /** The kernel's mask of each thread of {@code pid} whose name starts with {@code prefix}, by name. */
    static Map<String, String> kernel(long pid, String prefix) throws IOException {
        Map<String, String> out = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    String name = Files.readString(t.resolve("comm")).strip();
                    if (!name.startsWith(prefix)) continue;
                    for (String l : Files.readAllLines(t.resolve("status"))) {
                        if (l.startsWith("Cpus_allowed_list:")) out.put(name, l.substring(18).strip());
                    }
                } catch (IOException gone) {
                    // the thread ended
                }
            }
        }
        return out;
    }

    /** {@code pid}'s report as {@code status} reads it, once its agent has published one (a second after start, or later). */
    static Map<String, Object> published(Path java, long pid) throws Exception {
        Jvm.Result r = null;
        for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15); System.nanoTime() < deadline; Thread.sleep(200)) {
            r = Jvm.cli(java, List.of(), "status", Long.toString(pid), "--format", "json");
            if (r.exitCode() != 0) continue;
            // a report, not only the agent's marker: what the callers read
            Object report = map(list(map(JsonReader.parse(r.stdout())).get("jvms")).get(0)).get("report");
            if (report != null) return map(report);
        }
        throw new AssertionError("status never read the report of " + pid + ": " + r);
    }

    static final ObjectName AGENT_BEAN = objectName("io.qv4j:type=Agent");

    private static ObjectName objectName(String n) {
        try {
            return new ObjectName(n);
        } catch (javax.management.MalformedObjectNameException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A connection to {@code pid}'s platform MBean server, its local management agent started
     * through the Attach API, once the agent's MXBean is registered there (it registers once JMX
     * is in use; waits up to 10 s).
     */
    static JMXConnector agentMXBean(long pid) throws Exception {
        VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
        String url;
        try {
            url = vm.startLocalManagementAgent();
        } finally {
            vm.detach();
        }
        JMXConnector c = JMXConnectorFactory.connect(new JMXServiceURL(url));
        MBeanServerConnection s = c.getMBeanServerConnection();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!s.isRegistered(AGENT_BEAN) && System.nanoTime() < deadline) Thread.sleep(100);
        return c;
    }

    static String kernelOf(long pid, long tid) throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc", Long.toString(pid), "task", Long.toString(tid), "status"))) {
            if (l.startsWith("Cpus_allowed_list:")) return l.substring(18).strip();
        }
        throw new AssertionError("no mask for " + tid);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
        return (List<Object>) o;
    }

    /** The threads of {@code pid}'s status JSON, by name, once {@code n} are bound (polls up to 15 s). */
    static Map<String, Map<String, Object>> boundThreads(Path java, long pid, int n) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        String last = "";
        while (System.nanoTime() < deadline) {
            Jvm.Result r = Jvm.cli(java, List.of(), "status", Long.toString(pid), "--format", "json");
            last = r.toString();
            if (r.exitCode() == 0) {
                Map<String, Object> jvm = map(list(map(JsonReader.parse(r.stdout())).get("jvms")).get(0));
                Map<String, Map<String, Object>> out = new HashMap<>();
                if (jvm.get("report") != null) {
                    for (Object p : list(map(jvm.get("report")).get("pools"))) {
                        for (Object t : list(map(p).get("threads"))) {
                            if (Boolean.TRUE.equals(map(t).get("bound"))) out.put((String) map(t).get("name"), map(t));
                        }
                    }
                }
                if (out.size() >= n) return out;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no " + n + " bound threads: " + last);
    }

    @ParameterizedTest
    @MethodSource("javas")
    void statusShowsThePlanBesideTheKernel(Path java) throws Exception {
        try (Busy app = busy(java, "split-at=core,color=spread", 2); Busy plain = busy(java, null, 1)) {
            Map<String, Map<String, Object>> threads = boundThreads(java, app.pid(), 2);
            Set<String> cpus = new HashSet<>();
            for (String name : List.of("app-1", "app-2")) {
                Map<String, Object> t = threads.get(name);
                assertNotNull(t, threads.toString());
                String now = kernelOf(app.pid(), ((Number) t.get("tid")).longValue());
                assertEquals(now, t.get("kernel"), t.toString());
                assertEquals(now, t.get("cpuset"), t.toString());
                assertEquals(Boolean.TRUE, t.get("matches"), t.toString());
                cpus.add(now);
            }
            assertEquals(Set.of("0", "1"), cpus);

            Jvm.Result text = Jvm.cli(java, List.of(), "status", Long.toString(app.pid()));
            assertEquals(0, text.exitCode(), text.toString());
            assertTrue(text.stdout().contains("JVM " + app.pid()), text.stdout());
            for (Map<String, Object> t : threads.values()) {
                String row = text.stdout().lines().filter(l -> l.contains("  " + t.get("name") + " ")).findFirst().orElseThrow(() -> new AssertionError(text.stdout()));
                assertTrue(row.strip().startsWith(t.get("tid").toString()), row);
                // then what the neighbours watcher saw, once it has watched a period
                assertTrue(row.contains(" " + kernelOf(app.pid(), ((Number) t.get("tid")).longValue()) + " ") && row.matches(".*  ok(, waited \\d+ %)?(, moved \\d+x)?"), row);
            }
            assertTrue(text.stdout().lines().anyMatch(l -> l.startsWith("  claims: node, directory ") && l.contains(", this JVM holds ")), text.stdout());
            assertFalse(text.stdout().contains("{") || text.stdout().contains("\""), "prose and tables, no JSON: " + text.stdout());

            Jvm.Result svg = Jvm.cli(java, List.of(), "status", Long.toString(app.pid()), "--format", "svg");
            assertEquals(0, svg.exitCode(), svg.toString());
            org.w3c.dom.NodeList texts = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
                    .parse(new ByteArrayInputStream(svg.stdout().getBytes(StandardCharsets.UTF_8))).getElementsByTagName("text");
            StringBuilder drawn = new StringBuilder();
            for (int i = 0; i < texts.getLength(); i++) drawn.append(texts.item(i).getTextContent()).append('\n');
            Set<String> words = new HashSet<>(List.of(drawn.toString().split("[\\s,]+")));
            for (Map<String, Object> t : threads.values()) assertTrue(words.contains(t.get("name").toString()), t.get("name") + " not drawn: " + drawn);

            Jvm.Result all = Jvm.cli(java, List.of(), "status", "--format", "json");
            assertEquals(0, all.exitCode(), all.toString());
            Set<Long> pids = new HashSet<>();
            for (Object j : list(map(JsonReader.parse(all.stdout())).get("jvms"))) pids.add(((Number) map(j).get("pid")).longValue());
            assertTrue(pids.contains(app.pid()), all.stdout());
            assertFalse(pids.contains(plain.pid()), "a JVM without the agent is not listed: " + all.stdout());

            Jvm.Result none = Jvm.cli(java, List.of(), "status", Long.toString(plain.pid()));
            assertEquals(1, none.exitCode(), none.toString());
            assertEquals(1, none.stderr().strip().lines().count(), none.stderr());
            assertTrue(none.stderr().startsWith("qv: " + plain.pid() + ": no qv4j agent"), none.stderr());
        }
    }

    @Test
    void statusOfAProcessThatIsNoJvmOrNotMineIsOneLineAndHarmsNothing() throws Exception {
        Path java = Jvm.javas().get(0);
        Process sleep = new ProcessBuilder("sleep", "30").start();
        try {
            Jvm.Result r = Jvm.cli(java, List.of(), "status", Long.toString(sleep.pid()));
            assertEquals(1, r.exitCode(), r.toString());
            assertEquals("qv: " + sleep.pid() + ": not a JVM (sleep 30)", r.stderr().strip());
            assertTrue(sleep.isAlive(), "no signal reached the process");
        } finally {
            sleep.destroy();
        }
        boolean root = "0".equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid").toString());
        Assumptions.assumeTrue(root && Files.isExecutable(Path.of("/usr/bin/setpriv")), "needs root and setpriv to run a process as another user");
        Process other = new ProcessBuilder("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sleep", "30").start();
        try {
            Thread.sleep(200);
            Jvm.Result r = Jvm.cli(java, List.of(), "status", Long.toString(other.pid()));
            assertEquals(1, r.exitCode(), r.toString());
            assertTrue(r.stderr().strip().matches("qv: " + other.pid() + ": runs as another user \\(uid 65534\\).*"), r.stderr());
        } finally {
            other.destroy();
        }
    }

    @ParameterizedTest
    @MethodSource("javas")
    void attachCarriesItsOptionsAndAnswersForTheTarget(Path java) throws Exception {
        try (Busy app = busy(java, null, 2)) {
            Map<String, String> before = kernel(app.pid(), "app-");
            assertEquals(Set.of("0-1"), new HashSet<>(before.values()), before.toString());

            Jvm.Result bad = Jvm.cli(java, List.of(), "attach", Long.toString(app.pid()), "color=purple");
            assertEquals(2, bad.exitCode(), bad.toString());
            assertTrue(bad.stderr().contains("qv: " + app.pid() + ": bad value color=purple (allowed: "), bad.stderr());
            assertEquals(Set.of("0-1"), new HashSet<>(kernel(app.pid(), "app-").values()), "a refused attach pins nothing");

            Jvm.Result ok = Jvm.cli(java, List.of(), "attach", Long.toString(app.pid()), "split-at=core,pools=app-*");
            assertEquals(0, ok.exitCode(), ok.toString());
            Map<String, String> after = kernel(app.pid(), "app-");
            assertEquals(Set.of("0", "1"), new HashSet<>(after.values()), after + "\n" + ok);
            for (Map.Entry<String, String> e : after.entrySet()) {
                assertTrue(ok.stdout().lines().anyMatch(l -> l.contains("  " + e.getKey() + " ") && l.matches(".*  ok(, waited \\d+ %)?(, moved \\d+x)?")), ok.stdout());
            }

            Jvm.Result badAgain = Jvm.cli(java, List.of(), "attach", Long.toString(app.pid()), "color=purple");
            assertEquals(2, badAgain.exitCode(), "a bad option is an error even with the agent there: " + badAgain);
            assertTrue(badAgain.stderr().contains("qv: " + app.pid() + ": bad value color=purple (allowed: "), badAgain.stderr());

            Jvm.Result again = Jvm.cli(java, List.of(), "attach", Long.toString(app.pid()), "split-at=pu,color=packed");
            assertEquals(0, again.exitCode(), again.toString());
            assertTrue(again.stdout().contains("the qv4j agent is already there (options split-at=core,pools=app-*, attached): nothing changed"), again.stdout());
            Thread.sleep(300);
            assertEquals(after, kernel(app.pid(), "app-"));
        }
    }

    @Test
    void flightRecorderListsEveryPinnedWorker() throws Exception {
        Path java = Jvm.javas().get(0);
        Path jfr = Files.createTempFile("qv-jfr", ".jfr");
        try {
            Jvm.App r = Jvm.app(java, List.of(), List.of("-XX:StartFlightRecording=filename=" + jfr), "split-at=core,color=spread",
                    List.of("target/test-classes"), "io.qv4j.testapps.PoolApp", Set.of("thread", "task"), "fixed", "2");
            assertEquals(0, r.result().exitCode(), r.result().toString());
            Path tool = java.resolveSibling("jfr");
            Jvm.Result placed = Jvm.run(List.of(tool.toString(), "print", "--events", "io.qv4j.WorkerPlaced", jfr.toString()));
            assertEquals(0, placed.exitCode(), placed.toString());
            for (String t : List.of("pool-1-thread-1", "pool-1-thread-2")) {
                assertTrue(placed.stdout().contains("thread = \"" + t + "\""), placed.stdout());
                assertTrue(placed.stdout().contains("cpuset = \"" + r.cpus().get(t) + "\""), placed.stdout());
            }
            assertEquals(2, placed.stdout().split("io.qv4j.WorkerPlaced", -1).length - 1, placed.stdout());
            Jvm.Result planned = Jvm.run(List.of(tool.toString(), "print", "--events", "io.qv4j.PoolPlanned", jfr.toString()));
            assertTrue(planned.stdout().contains("pool = \"pool-1\"") && planned.stdout().contains("tasks = 2"), planned.stdout());
        } finally {
            Files.deleteIfExists(jfr);
        }
    }

    /**
     * Fork/join workers that leave {@code run()} by an exception (their {@code onTermination}
     * throws) are gone: {@code status} and the MXBean list each as exited, none as alive.
     */
    @ParameterizedTest
    @MethodSource("javas")
    void workersThatDiedThroughAnExceptionAreListedExited(Path java) throws Exception {
        try (Busy app = started(java, "split-at=pu", "io.qv4j.testapps.DyingWorkersApp")) {
            Map<String, Object> report = published(java, app.pid());
            Set<String> exited = new HashSet<>();
            for (Object p : list(report.get("pools"))) {
                for (Object t : list(map(p).get("threads"))) {
                    String name = (String) map(t).get("name");
                    if (!name.startsWith("fj-")) continue;
                    assertEquals(Boolean.TRUE, map(t).get("exited"), name + " listed alive: " + report);
                    exited.add(name);
                }
            }
            assertEquals(Set.of("fj-1", "fj-2"), exited, "both workers were placed, then seen to end: " + report);
            try (JMXConnector c = agentMXBean(app.pid())) {
                MBeanServerConnection s = c.getMBeanServerConnection();
                Set<String> inBean = new HashSet<>();
                for (CompositeData t : (CompositeData[]) s.getAttribute(AGENT_BEAN, "Threads")) {
                    if (!((String) t.get("name")).startsWith("fj-")) continue;
                    assertEquals(Boolean.TRUE, t.get("exited"), t.toString());
                    inBean.add((String) t.get("name"));
                }
                assertEquals(Set.of("fj-1", "fj-2"), inBean);
            }
        }
    }

    /**
     * {@code status PID --watch 0.2 --format json} through a pipe, five refreshes: each line parses,
     * every worker is on a PU of the mask the kernel shows, that PU was busy, its wait share (where
     * the kernel has schedstat) is 0 to 1, the contended PUs are a cpulist of PUs, and the pool's
     * completed tasks grow with a positive rate.
     */
    @ParameterizedTest
    @MethodSource("javas")
    void watchThroughAPipeIsAJsonLinePerIntervalWithEachWorkerWhereTheKernelHasIt(Path java) throws Exception {
        try (Busy app = busy(java, "split-at=core,color=spread", 2)) {
            boundThreads(java, app.pid(), 2);
            Jvm.Result r = Jvm.cli(java, List.of(), "status", Long.toString(app.pid()), "--watch", "0.2", "--format", "json", "--count", "5");
            assertEquals(0, r.exitCode(), r.toString());
            List<String> lines = r.stdout().lines().toList();
            assertEquals(5, lines.size(), r.stdout());
            long lastDone = -1;
            Double lastRate = null;
            for (String line : lines) {
                Map<String, Object> v = map(JsonReader.parse(line));
                Map<Long, Double> load = new HashMap<>();
                for (Object p : list(v.get("pus"))) if (map(p).get("load") instanceof Number n) load.put(((Number) map(p).get("pu")).longValue(), n.doubleValue());
                Map<String, Object> jvm = map(list(v.get("jvms")).get(0));
                assertEquals(app.pid(), ((Number) jvm.get("pid")).longValue());
                Map<String, Object> pool = map(list(jvm.get("pools")).get(0));
                assertEquals(2, list(pool.get("workers")).size(), line);
                for (Object wo : list(pool.get("workers"))) {
                    Map<String, Object> w = map(wo);
                    long tid = ((Number) w.get("tid")).longValue();
                    String kernel = kernelOf(app.pid(), tid);
                    assertEquals(kernel, w.get("cpus"), line);
                    long pu = ((Number) w.get("pu")).longValue();
                    assertTrue(io.qv4j.topology.CpuSet.parse(kernel).contains((int) pu), line);
                    assertTrue(load.get(pu) >= 0.1, "the PU of a busy worker is busy: " + line);
                    if (Files.isReadable(Path.of("/proc/self/schedstat"))) {
                        double waited = ((Number) w.get("waited")).doubleValue(); // over the interval, from schedstat
                        assertTrue(waited >= 0 && waited <= 1, line);
                    }
                }
                for (int pu : io.qv4j.topology.CpuSet.parse((String) v.get("contended")).toArray()) assertTrue(load.containsKey((long) pu), "a contended PU is a PU: " + line);
                long done = ((Number) pool.get("completedTasks")).longValue();
                assertTrue(done >= lastDone, line);
                lastDone = done;
                if (pool.get("tasksPerSecond") instanceof Number n) lastRate = n.doubleValue();
            }
            assertTrue(lastRate != null && lastRate > 0, "a positive rate: " + r.stdout());
        }
    }

    /**
     * {@code status PID --watch 0.2 --count 50} on a JVM that exits (its stdin closed) or is killed
     * ({@code kill -9}) a second in: the watch ends by itself within about a second, exit 0, its
     * last JSON line says the process is gone, and no "no such process" line comes per refresh.
     */
    @ParameterizedTest
    @MethodSource("javas")
    void watchEndsWhenItsJvmExitsOrIsKilled(Path java) throws Exception {
        for (boolean kill : new boolean[] {false, true}) {
            try (Busy app = busy(java, "", 1)) {
                // a watch begun before the agent published would first say "no qv4j agent" (a race
                // with the first publish, a second after start, that once cost this test 6.5 s)
                published(java, app.pid());
                Thread end = new Thread(() -> {
                    try {
                        Thread.sleep(1000);
                        if (kill) app.process().destroyForcibly().waitFor();
                        else app.close();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                end.start();
                long t0 = System.nanoTime();
                Jvm.Result r = Jvm.cli(java, List.of(), "status", Long.toString(app.pid()), "--watch", "0.2", "--format", "json", "--count", "50");
                long took = (System.nanoTime() - t0) / 1_000_000;
                end.join();
                assertEquals(0, r.exitCode(), r.toString());
                assertTrue(took < 6000, (kill ? "killed" : "exited") + ": ended after " + took + " ms, not after 50 refreshes: " + r);
                List<String> lines = r.stdout().lines().toList();
                Map<String, Object> last = map(JsonReader.parse(lines.get(lines.size() - 1)));
                assertEquals(List.of(app.pid()), list(last.get("gone")), r.toString());
                assertEquals("every process watched is gone", last.get("end"), r.toString());
                assertFalse(r.stderr().contains("no such process"), r.toString());
            }
        }
    }

    /**
     * On a terminal (a pseudo-terminal from {@code script}) the view is drawn in place (cursor home,
     * not scrolled), {@code q} ends it with exit 0, and the terminal's settings are as before.
     */
    @Test
    void watchOnATerminalRedrawsInPlaceAndQEndsItRestoringTheTerminal() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/script")), "needs script(1) for a pseudo-terminal");
        Path java = Jvm.javas().get(0);
        try (Busy app = busy(java, "", 2)) {
            boundThreads(java, app.pid(), 2);
            String cmd = "stty -g; " + java + " -jar " + Jvm.agentJar() + " status " + app.pid() + " --watch 0.2; echo rc=$?; stty -g";
            Process p = new ProcessBuilder("script", "-q", "-e", "-c", cmd, "/dev/null").redirectErrorStream(true).start();
            Thread.sleep(4000); // a cold CLI, then refreshes every 0.2 s, each reading the target through the Attach API
            p.getOutputStream().write('q');
            p.getOutputStream().flush();
            assertTrue(p.waitFor(20, TimeUnit.SECONDS), "q ends it");
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(out.contains("rc=0"), out);
            long redraws = out.split("\033\\[H", -1).length - 1;
            assertTrue(redraws >= 3, "drawn in place " + redraws + " times: " + out);
            assertTrue(out.contains("\033[?25h"), "cursor shown again");
            List<String> settings = out.lines().map(String::strip).filter(l -> l.matches("[0-9a-f]+(:[0-9a-f]+)+")).toList();
            assertEquals(2, settings.size(), out);
            assertEquals(settings.get(0), settings.get(1), "the terminal as it was");
        }
    }

    /** On a machine of several CPU kinds (here an hwloc XML of three, planned for under bind=dry-run) status text names them. */
    @Test
    void statusNamesTheCpuKinds() throws Exception {
        Path java = Jvm.javas().get(0);
        String xml = Path.of("target/test-classes/fixtures/xml/24em64t-2n6c2t-pci-3kinds.xml").toAbsolutePath().toString();
        try (Busy app = busy(java, "bind=dry-run,topology=" + xml, 2)) {
            String last = "";
            for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15); System.nanoTime() < deadline; Thread.sleep(200)) {
                last = Jvm.cli(java, List.of(), "status", Long.toString(app.pid())).stdout();
                if (last.contains("cpu kinds:")) break;
            }
            assertTrue(last.contains("\n  cpu kinds: efficiency 0 pus 6-11,18-23, efficiency 1 pus 2-5,14-17, efficiency 2 pus 0-1,12-13\n"), last);
        }
    }

    @Test
    void theMXBeanShowsTheReportThroughALocalConnector() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        try (Busy app = busy(java, "split-at=core", 2)) {
            boundThreads(java, app.pid(), 2);
            try (JMXConnector c = agentMXBean(app.pid())) {
                MBeanServerConnection s = c.getMBeanServerConnection();
                ObjectName name = AGENT_BEAN;
                assertTrue(s.isRegistered(name), "registered once JMX is in use");
                Map<String, Object> report = map(JsonReader.parse((String) s.getAttribute(name, "ReportJson")));
                assertEquals(map(report.get("agent")).get("jvmScope"), s.getAttribute(name, "Scope"));
                assertTrue(List.of((String[]) s.getAttribute(name, "Settings")).contains("bind=on"));
                List<String> kinds = new ArrayList<>();
                for (Object k : list(map(report.get("agent")).get("cpukinds"))) kinds.add("efficiency " + map(k).get("efficiency") + ": pus " + map(k).get("cpus"));
                assertEquals(kinds, List.of((String[]) s.getAttribute(name, "CpuKinds")));
                Map<String, Map<String, Object>> inReport = new HashMap<>();
                for (Object p : list(report.get("pools"))) for (Object t : list(map(p).get("threads"))) inReport.put((String) map(t).get("name"), map(t));
                CompositeData[] threads = (CompositeData[]) s.getAttribute(name, "Threads");
                assertEquals(inReport.size(), threads.length);
                int checked = 0;
                for (CompositeData t : threads) {
                    Map<String, Object> r = inReport.get((String) t.get("name"));
                    assertNotNull(r, t.toString());
                    assertEquals(r.get("cpuset"), t.get("cpuset"));
                    assertEquals(((Number) r.get("tid")).longValue(), t.get("tid"));
                    assertEquals(((Number) r.get("slot")).intValue(), t.get("slot"));
                    if (((String) t.get("name")).startsWith("app-")) {
                        assertEquals(kernelOf(app.pid(), (Long) t.get("tid")), t.get("cpuset"));
                        checked++;
                    }
                }
                assertEquals(2, checked);
                CompositeData[] pools = (CompositeData[]) s.getAttribute(name, "Pools");
                assertTrue(List.of(pools).stream().anyMatch(p -> Boolean.TRUE.equals(p.get("pinned")) && Integer.valueOf(2).equals(p.get("tasks"))));
                assertTrue(List.of(pools).stream().anyMatch(p -> "local".equals(p.get("memory"))), "the pools' memory word");
                long[] byNode = (long[]) s.getAttribute(name, "MemoryByNode");
                long resident = 0;
                for (long b : byNode) resident += b;
                // status reads the same file from outside; a NUMA kernel has at least node 0
                if (Files.isReadable(Path.of("/proc/self/numa_maps"))) assertTrue(resident > 1 << 20, "resident bytes by node: " + resident);
            }
        }
    }
}
