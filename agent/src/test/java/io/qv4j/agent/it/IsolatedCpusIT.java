package io.qv4j.agent.it;

import io.qv4j.agent.report.JsonReader;
import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.qv4j.agent.it.GuestBatch.java;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The multi-socket guest (2 packages x 2 NUMA nodes x 1 core x 2 hardware threads) booted with
 * {@code isolcpus=2-3 nohz_full=2-3}, as latency-minded users set up their machines: {@code topology}
 * and {@code status} say which PUs the kernel isolates, a pool under {@code taskset -c 0-7} stays
 * off them while an exclusive pool takes them first, one PU per worker, and a JVM in an isolated
 * cgroup v2 cpuset partition sees its PUs isolated too.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IsolatedCpusIT {

    static final Guest.Shape SHAPE = Guest.Shape.of(2, 2, 1, 2).withAppend("isolcpus=2-3 nohz_full=2-3");

    GuestBatch.Output out;

    @BeforeAll
    void boot() throws Exception {
        String topology = GuestBatch.JAVA + " -jar " + GuestBatch.AGENT + " topology";
        GuestBatch b = new GuestBatch()
                .file("/qv/p.txt", "p tpe 4 60000\n")
                .file("/qv/x.txt", "x tpe 2\n")
                .file("/qv/x.properties", "rule.x.match.thread = x-*\nrule.x.exclusive = true\n")
                .section("kernel", "cat /sys/devices/system/cpu/isolated /sys/devices/system/cpu/nohz_full")
                .section("topology", topology + "; echo '--- json'; " + topology + " --format json")
                .section("pool", "taskset -c 0-7 " + java("", "io.qv4j.testapps.SplitsApp /qv/p.txt") + " > /tmp/p.out & "
                        + "await /tmp/p.out '^case' 4; pid=$(jvmpid /tmp/p.out); echo '--- status'; "
                        + GuestBatch.JAVA + " -jar " + GuestBatch.AGENT + " status $pid; echo '--- app'; kill $pid; wait; cat /tmp/p.out")
                .section("exclusive", "taskset -c 0-7 " + java("config=/qv/x.properties,verbose=true", "io.qv4j.testapps.SplitsApp /qv/x.txt"))
                .section("partition", "cg=/sys/fs/cgroup/rt; echo +cpuset > /sys/fs/cgroup/cgroup.subtree_control; mkdir $cg; "
                        + "echo 6-7 > $cg/cpuset.cpus; echo isolated > $cg/cpuset.cpus.partition; echo \"partition $(cat $cg/cpuset.cpus.partition)\"; "
                        + "sh -c \"echo \\$\\$ > $cg/cgroup.procs; exec " + topology + " --format json\"");
        out = b.boot(SHAPE, Duration.ofMinutes(8));
    }

    @BeforeEach
    void guestBooted() {
        GuestBatch.assumeGuest();
    }

    @Test
    void topologyShowsTheKernelsIsolatedAndTicklessPus() {
        assertEquals("2-3\n2-3", out.get("kernel").strip(), "the guest booted as asked");
        String s = out.get("topology");
        String text = s.substring(0, s.indexOf("--- json"));
        Map<?, ?> j = (Map<?, ?>) JsonReader.parse(s.substring(s.indexOf("--- json") + 8));
        assertEquals("2-3", j.get("isolated"), s);
        assertEquals("2-3", j.get("tickless"), s);
        // the kernel's default affinity leaves isolated PUs out: not allowed (x) as well, unless taskset puts them in
        assertTrue(text.contains("PU 2(x)(i)") && text.contains("PU 3(x)(i)") && !text.contains("PU 1(") && !text.contains("PU 4("), text);
        assertTrue(text.contains("isolated by the kernel") && text.contains("tickless (nohz_full): pus 2-3"), text);
    }

    @Test
    void aPoolOfFourUnderTasksetWithDefaultOptionsHasNoWorkerOnTheIsolatedPus() {
        String s = out.get("pool");
        List<String> workers = new ArrayList<>();
        for (List<String> l : GuestBatch.masks(s, "p").values()) workers.addAll(l);
        assertEquals(4, workers.size(), s);
        for (String w : workers) {
            CpuSet c = CpuSet.parse(w);
            assertFalse(c.intersects(CpuSet.parse("2-3")), w + " is on an isolated PU\n" + s);
            assertTrue(CpuSet.parse("0-7").containsAll(c), s);
        }
        String status = s.substring(s.indexOf("--- status"), s.indexOf("--- app"));
        assertTrue(status.contains("isolated by the kernel: pus 2-3; pools are planned on pus 0-1,4-7"), status);
    }

    @Test
    void anExclusivePoolOfTwoTakesTheIsolatedPusOneEach() {
        String s = out.get("exclusive");
        assertEquals(List.of("2", "3"), GuestBatch.masks(s, "x").get("x"), s);
        assertFalse(s.contains("refused"), s);
    }

    @Test
    void aJvmInAnIsolatedCgroupPartitionSeesItsPusIsolated() {
        String s = out.get("partition");
        assertTrue(s.contains("partition isolated\n"), s);
        Map<?, ?> j = (Map<?, ?>) JsonReader.parse(s.substring(s.indexOf('{')));
        assertEquals("6-7", j.get("allowed"), s);
        assertEquals("2-3,6-7", j.get("isolated"), s);
    }
}
