package io.qv4j.agent.it;

import io.qv4j.agent.cli.plan.LstopoComparison;
import io.qv4j.agent.cli.plan.PlanOracle;
import io.qv4j.agent.it.GuestBatch.Case;
import io.qv4j.agent.report.JsonReader;
import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.qv4j.agent.it.GuestBatch.java;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The live checks every guest machine gets, booted once per machine (a subclass names the shape
 * and adds its own sections): {@code topology} against the guest's own lstopo, the split battery
 * against the {@code plan} command in the kernel's view, claims among two and four JVMs, ranks
 * under {@code mpirun}, {@code status} in text and SVG. What each expects is derived from the
 * shape: packages, nodes, cores in qemu's numbering (threads innermost, a node is a run of cores).
 * Timings in the guest mean nothing (TCG); placement and the kernel's masks do.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class GuestMachineChecks {

    final Guest.Shape shape;
    List<Case> cases;
    GuestBatch.Output out;
    Path xml;

    GuestMachineChecks(Guest.Shape shape) {
        this.shape = shape;
    }

    /** This machine's own sections, run after the common ones in the same boot. */
    abstract void more(GuestBatch b);

    /** How long the whole boot may take. */
    abstract Duration budget();

    @BeforeAll
    void boot() throws Exception {
        cases = GuestBatch.battery(pieces());
        GuestBatch b = new GuestBatch()
                .file("/qv/rules.properties", GuestBatch.rules(cases))
                .file("/qv/cases.txt", GuestBatch.casesFile(cases))
                .file("/qv/two-a.txt", "two tpe 2 60000\n").file("/qv/two-b.txt", "two tpe 2\n")
                .file("/qv/rank.txt", "pause 3000\nr tpe 2 3000\n").file("/qv/held.txt", "s tpe 2 60000\n");
        for (int i = 0; i < 4; i++) b.file("/qv/four" + i + ".txt", "four tpe 1 60000\n");
        // ranks pause before their pool: two JVMs starting at once under TCG can take longer than the
        // agent's start-up wait (3 s), and a worker that starts before the agent is ready runs unpinned
        // until its next task (seen once: rank 0's pool of 2 both on its package); and they hold their
        // pool 3 s: the claims keep two pools apart while both are alive, and a rank whose pool had
        // ended before the other planned left it the same nodes, rightly (seen once without the hold)
        // JVMs that hold their pools for others to see are killed once the others have been placed
        b.section("lstopo", "lstopo-no-graphics --of xml")
                .section("topology", GuestBatch.JAVA + " -jar " + GuestBatch.AGENT + " topology --format json")
                .section("splits", java("config=/qv/rules.properties", "io.qv4j.testapps.SplitsApp /qv/cases.txt"))
                .section("two", java("split-at=numa", "io.qv4j.testapps.SplitsApp /qv/two-a.txt") + " > /tmp/two-a.out & a=$!; sleep 2; "
                        + java("split-at=numa", "io.qv4j.testapps.SplitsApp /qv/two-b.txt") + "; await /tmp/two-a.out '^case' 2; kill $a; wait; cat /tmp/two-a.out")
                .section("four", "p=; for i in 0 1 2 3; do " + java("split-at=numa", "io.qv4j.testapps.SplitsApp /qv/four$i.txt")
                        + " > /tmp/four$i.out & p=\"$p $!\"; done; await '/tmp/four?.out' '^case' 4; kill $p; wait; cat /tmp/four?.out")
                .section("status", java("split-at=numa", "io.qv4j.testapps.SplitsApp /qv/held.txt") + " > /tmp/held.out & "
                        + "await /tmp/held.out '^case' 2; pid=$(jvmpid /tmp/held.out); "
                        // the report is republished a while after a change (longer while a publish is dear, cold and emulated)
                        + "for i in $(seq 30); do [ $(" + GuestBatch.JAVA + " -jar " + GuestBatch.AGENT + " status --format json $pid"
                        + " | grep -c '\"name\": \"s-[12]\"') -ge 2 ] && break; sleep 0.5; done; "
                        + "echo '--- text'; " + GuestBatch.JAVA + " -jar " + GuestBatch.AGENT + " status; "
                        + "echo '--- svg'; " + GuestBatch.JAVA + " -jar " + GuestBatch.AGENT + " status --format svg $pid; echo; "
                        // VmRSS just before and after the JSON: the JVM's memory grows while status reads it (seconds, emulated)
                        + "rss() { sed -n 's/^VmRSS:[[:space:]]*\\([0-9]*\\).*/\\1/p' /proc/$pid/status; }; before=$(rss); "
                        + "echo '--- json'; " + GuestBatch.JAVA + " -jar " + GuestBatch.AGENT + " status --format json $pid; echo; "
                        + "echo \"--- rss $before $(rss)\"; "
                        + "echo '--- app'; kill $pid; wait; cat /tmp/held.out")
                .section("mpirun", "mpirun --allow-run-as-root --tag-output --map-by socket --bind-to socket -np 2 "
                        + java("split-at=numa", "io.qv4j.testapps.SplitsApp /qv/rank.txt"));
        more(b);
        out = b.boot(shape, budget());
        if (out == null) return;
        xml = Files.createTempFile("guest-lstopo", ".xml");
        Files.writeString(xml, out.get("lstopo"));
    }

    @BeforeEach
    void guestBooted() {
        GuestBatch.assumeGuest();
    }

    @Test
    void theGuestIsTheMachineItIsFor() {
        String t = out.get("topology");
        Map<?, ?> j = (Map<?, ?>) JsonReader.parse(t);
        assertEquals(runs(0, shape.pus()).get(0), j.get("online"), t);
        assertEquals(packages(), j.get("packages"), t);
        assertEquals(nodes(), ((List<?>) j.get("numa")).stream().map(n -> ((Map<?, ?>) n).get("cpus")).toList(), t);
        assertEquals(runs(shape.threadsPerCore(), shape.pus()), j.get("cores"), t);
    }

    @Test
    void topologyEqualsTheGuestsLstopoInEveryFieldTheFixturesCompare() throws Exception {
        assertEquals(List.of(), LstopoComparison.differences(xml, out.get("topology")), "topology --format json against lstopo's summary");
        assertEquals(lstopoMemory(), topologyMemory(), "each NUMA node's memory");
        for (Map.Entry<String, Integer> e : pieces().entrySet()) {
            assertEquals(e.getValue(), PlanOracle.pieces(xml.toString(), e.getKey()), "pieces of split-at=" + e.getKey());
        }
    }

    @Test
    void everySplitAtAndColorForEveryPoolSizeIsThePlanCommandsPlanInTheKernelsView() {
        Map<String, List<String>> seen = GuestBatch.masks(out.get("splits"), "c");
        List<String> wrong = new ArrayList<>();
        for (Case c : cases) {
            List<String> planned = GuestBatch.planned(xml.toString(), c);
            List<String> got = seen.get(c.id());
            if (!planned.equals(got)) wrong.add(c + ": planned " + planned + ", kernel " + got);
        }
        assertTrue(wrong.isEmpty(), wrong.size() + " of " + cases.size() + " pools not as planned:\n" + String.join("\n", wrong)
                + "\n" + GuestBatch.Output.tail(out.get("splits")));
    }

    @Test
    void twoJvmsStartedTwoSecondsApartTakeDisjointWholeNodes() {
        List<String> all = workers("two");
        assertEquals(4, all.size(), out.get("two"));
        assertDisjointNodes(all, out.get("two"));
    }

    @Test
    void fourJvmsStartedTogetherTakeFourDifferentNodes() {
        List<String> all = workers("four");
        assertEquals(4, all.size(), out.get("four"));
        assertDisjointNodes(all, out.get("four"));
    }

    @Test
    void underMpirunBoundToSocketsEachRanksPoolSplitsItsPackageIntoNodes() {
        Map<Integer, List<String>> byRank = ranks("mpirun");
        assertEquals(2, byRank.size(), out.get("mpirun"));
        int perPackage = shape.nodesPerPackage();
        for (Map.Entry<Integer, List<String>> r : byRank.entrySet()) {
            List<String> want = new ArrayList<>(nodes().subList(r.getKey() * perPackage, r.getKey() * perPackage + Math.min(2, perPackage)));
            want.sort(null);
            assertEquals(want, r.getValue(), "rank " + r.getKey() + " bound to package " + r.getKey() + "\n" + out.get("mpirun"));
        }
    }

    @Test
    void statusShowsTheRunningJvmsWorkersAndDrawsThem() {
        String s = out.get("status");
        String text = s.substring(s.indexOf("--- text"), s.indexOf("--- svg"));
        String svg = s.substring(s.indexOf("--- svg"), s.indexOf("--- json"));
        List<String> held = workers("status");
        assertEquals(2, held.size(), s);
        assertTrue(nodes().containsAll(held), s);
        for (String w : held) assertTrue(text.contains(w), w + " in\n" + text);
        assertTrue(svg.contains("<svg") && svg.contains("</svg>"), svg);
        assertTrue(svg.contains("2 workers of pinned pools"), svg);
        for (String name : List.of("s-1", "s-2")) assertTrue(svg.contains(name) && !svg.contains(name + "!"), name + " where the agent put it\n" + svg);
    }

    /** The memory issue's fourth criterion: {@code status --format json}'s memory by node sums to the JVM's resident size within 5 %. */
    @Test
    void statusMemoryByNodeSumsToTheJvmsResidentSize() {
        String s = out.get("status");
        String json = s.substring(s.indexOf("--- json") + 8, s.indexOf("--- rss")).strip();
        Map<?, ?> j;
        try {
            j = (Map<?, ?>) JsonReader.parse(json);
        } catch (IllegalArgumentException e) {
            throw new AssertionError("status --format json printed what is not JSON alone (" + e.getMessage() + "):\n" + s, e);
        }
        Map<?, ?> jvm = (Map<?, ?>) ((List<?>) j.get("jvms")).get(0);
        long sum = 0;
        for (Object n : (List<?>) jvm.get("memory")) sum += ((Number) ((Map<?, ?>) n).get("bytes")).longValue();
        Matcher rss = Pattern.compile("--- rss (\\d+) (\\d+)").matcher(s);
        assertTrue(rss.find(), s);
        long before = Long.parseLong(rss.group(1)) * 1024;
        long after = Long.parseLong(rss.group(2)) * 1024;
        System.out.println("status memory by node " + jvm.get("memory") + ": " + sum + " bytes; VmRSS " + before + " before, " + after + " after");
        // status read numa_maps between the two VmRSS readings
        assertTrue(sum >= 0.95 * Math.min(before, after) && sum <= 1.05 * Math.max(before, after),
                sum + " bytes by node against VmRSS " + before + " before and " + after + " after\n" + s);
    }

    /** Each rank's workers' masks, sorted, from {@code mpirun --tag-output} lines. */
    Map<Integer, List<String>> ranks(String section) {
        String s = out.get(section);
        assertEquals(0, out.exits.get(section), s);
        Map<Integer, List<String>> byRank = new TreeMap<>();
        Matcher m = Pattern.compile("(?m)^\\[\\d+,(\\d+)\\]<stdout>:case r cpus=(\\S+)$").matcher(s);
        while (m.find()) byRank.computeIfAbsent(Integer.parseInt(m.group(1)), k -> new ArrayList<>()).add(CpuSet.parse(m.group(2)).toString());
        byRank.values().forEach(l -> l.sort(null));
        return byRank;
    }

    void assertDisjointNodes(List<String> workers, String output) {
        assertTrue(nodes().containsAll(workers), "whole nodes: " + workers + "\n" + output);
        assertEquals(workers.size(), java.util.Set.copyOf(workers).size(), "disjoint: " + workers + "\n" + output);
    }

    /** Pieces of each split-at on this shape: L2 per core, L3 per package (qemu's cache model). */
    Map<String, Integer> pieces() {
        int cores = shape.nodes() * shape.coresPerNode();
        return Map.of("pu", shape.pus(), "core", cores, "l2", cores, "l3", shape.packages(), "numa", shape.nodes(), "package", shape.packages());
    }

    List<String> nodes() {
        return runs(shape.coresPerNode() * shape.threadsPerCore(), shape.pus());
    }

    List<String> packages() {
        return runs(shape.pus() / shape.packages(), shape.pus());
    }

    /** {@code 0-(size-1)}, {@code size-(2size-1)}, ... up to {@code total} PUs; one run of all where size is 0. */
    static List<String> runs(int size, int total) {
        int step = size == 0 ? total : size;
        List<String> out = new ArrayList<>();
        for (int first = 0; first < total; first += step) out.add(CpuSet.range(first, first + step - 1).toString());
        return out;
    }

    /** The sorted masks of a section's workers ({@code case} lines). */
    List<String> workers(String section) {
        List<String> all = new ArrayList<>();
        for (List<String> l : GuestBatch.masks(out.get(section), "").values()) all.addAll(l);
        all.sort(null);
        return all;
    }

    /** Each NUMA node's memory by OS index, as lstopo's XML gives it ({@code local_memory}). */
    private Map<Long, Long> lstopoMemory() {
        Map<Long, Long> m = new TreeMap<>();
        Matcher x = Pattern.compile("type=\"NUMANode\"[^>]*?os_index=\"(\\d+)\"[^>]*?local_memory=\"(\\d+)\"").matcher(out.get("lstopo"));
        while (x.find()) m.put(Long.parseLong(x.group(1)), Long.parseLong(x.group(2)));
        return m;
    }

    /** Each NUMA node's memory by OS index, as {@code topology --format json} gives it. */
    private Map<Long, Long> topologyMemory() {
        Map<Long, Long> m = new TreeMap<>();
        Map<?, ?> j = (Map<?, ?>) JsonReader.parse(out.get("topology"));
        for (Object o : (List<?>) j.get("numa_memory")) {
            Map<?, ?> n = (Map<?, ?>) o;
            m.put(((Number) n.get("os")).longValue(), ((Number) n.get("bytes")).longValue());
        }
        return m;
    }
}
