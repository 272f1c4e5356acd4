package io.qv4j.agent.node;

import io.qv4j.topology.HwType;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.SyntheticSpec;
import io.qv4j.topology.Topology;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Local rank detection and the JVM scope that follows, on synthetic machines. */
class LauncherScopeTest {

    static final Topology BIG = SyntheticSpec.parse("package:2 numa:2 core:4 pu:2"); // 32 PUs, PU 2c,2c+1 on core c

    @Test
    void launchersVariables() {
        assertEquals(new LocalRank(1, 4, "Open MPI", false),
                LocalRank.detect(null, Map.of("OMPI_COMM_WORLD_LOCAL_RANK", "1", "OMPI_COMM_WORLD_LOCAL_SIZE", "4", "SLURM_LOCALID", "3")));
        assertEquals(new LocalRank(2, 3, "PMIx", false), LocalRank.detect(null, Map.of("PMIX_LOCAL_RANK", "2", "PMIX_LOCAL_SIZE", "3")));
        assertEquals(new LocalRank(0, 2, "local-rank=", true),
                LocalRank.detect(new int[] {0, 2}, Map.of("OMPI_COMM_WORLD_LOCAL_RANK", "1", "OMPI_COMM_WORLD_LOCAL_SIZE", "4", "OMPI_MCA_orte_bound_at_launch", "1")));
        assertNull(LocalRank.detect(null, Map.of("OMPI_COMM_WORLD_LOCAL_RANK", "4", "OMPI_COMM_WORLD_LOCAL_SIZE", "4")), "rank out of range");
        assertNull(LocalRank.detect(null, Map.of()));
    }

    @Test
    void slurmTasksPerNode() {
        assertEquals(2, LocalRank.tasksOnNode("2(x3),1", 2));
        assertEquals(1, LocalRank.tasksOnNode("2(x3),1", 3));
        assertNull(LocalRank.tasksOnNode("2(x3),1", 4));
        assertNull(LocalRank.tasksOnNode("2(3)", 0));
        assertEquals(new LocalRank(0, 1, "Slurm", false),
                LocalRank.detect(null, Map.of("SLURM_LOCALID", "0", "SLURM_NODEID", "3", "SLURM_TASKS_PER_NODE", "2(x3),1")));
        assertEquals(new LocalRank(1, 4, "Slurm", true), LocalRank.detect(null, Map.of("SLURM_LOCALID", "1", "SLURM_NODEID", "0",
                "SLURM_STEP_TASKS_PER_NODE", "4,2", "SLURM_TASKS_PER_NODE", "8", "SLURM_CPU_BIND_TYPE", "mask_cpu:")));
        assertEquals(new LocalRank(1, 2, "Slurm", false, "SLURM_CPU_BIND_TYPE=none"), LocalRank.detect(null, Map.of("SLURM_LOCALID", "1",
                "SLURM_NTASKS_PER_NODE", "2", "SLURM_CPU_BIND_TYPE", "none")));
    }

    @Test
    void balancedSplitByRank() {
        LauncherScope s = LauncherScope.compute(BIG, BIG.allowed(), new LocalRank(1, 4, "Open MPI", false), null, null, false);
        assertEquals(CpuSet.parse("8-15"), s.scope());
        assertFalse(s.shared());
        assertTrue(s.messages().isEmpty(), s.messages().toString());
        // 3 ranks on 16 cores: 6, 5, 5 cores
        assertEquals(CpuSet.parse("12-21"), LauncherScope.compute(BIG, BIG.allowed(), new LocalRank(1, 3, "x", false), null, null, false).scope());
    }

    /** 6 performance cores of 2 PUs (0-11) and 8 efficiency cores (12-19), written as a synthetic spec of 20 one-PU cores. */
    @Test
    void onAHybridMachineEachRankGetsItsShareOfEveryKind() {
        Topology laptop = SyntheticSpec.parse("package:1 core:20 kind:0-11@1 kind:12-19@0");
        assertEquals(CpuSet.parse("0-5,12-15"), LauncherScope.compute(laptop, laptop.allowed(), new LocalRank(0, 2, "x", false), null, null, false).scope());
        LauncherScope second = LauncherScope.compute(laptop, laptop.allowed(), new LocalRank(1, 2, "x", false), null, null, false);
        assertEquals(CpuSet.parse("6-11,16-19"), second.scope());
        assertTrue(second.detail().contains("each CPU kind's PUs shared out on their own"), second.detail());
        // more ranks than one kind has PUs: the machine is shared out as one
        LauncherScope many = LauncherScope.compute(laptop, laptop.allowed(), new LocalRank(0, 10, "x", false), null, null, false);
        assertEquals(CpuSet.parse("0-1"), many.scope());
    }

    @Test
    void rankSplitAtAType() {
        LauncherScope s = LauncherScope.compute(BIG, BIG.allowed(), new LocalRank(1, 2, "x", false), HwType.NUMANODE, null, false);
        assertEquals(CpuSet.parse("16-31"), s.scope(), "AUTO: 2 ranks on 4 NUMA nodes take 2 each");
        assertEquals(LauncherScope.Decision.SPLIT, s.decision());
        s = LauncherScope.compute(BIG, BIG.allowed(), new LocalRank(5, 8, "x", false), HwType.NUMANODE, null, false);
        assertEquals(CpuSet.parse("16-23"), s.scope(), "8 ranks on 4 nodes: packed blocks of 2, 8 PUs for 2 ranks");
        assertTrue(s.shared());
        assertFalse(s.oversubscribed());
    }

    @Test
    void moreRanksThanPusAreLeftUnbound() {
        Topology two = SyntheticSpec.parse("core:2");
        for (int r = 0; r < 4; r++) {
            LauncherScope s = LauncherScope.compute(two, two.allowed(), new LocalRank(r, 4, "Open MPI", false), null, null, false);
            assertEquals(two.allowed(), s.scope(), "unbound: the allowed set");
            assertEquals(LauncherScope.Decision.UNBOUND_OVERSUBSCRIBED, s.decision());
            assertTrue(s.oversubscribed());
            assertFalse(s.shared());
            assertEquals(List.of("local rank " + r + "/4 (Open MPI): 4 local ranks on 2 PUs (oversubscribed): this process is left unbound"
                    + " (JVM scope: all allowed pus 0-1), as Open MPI leaves oversubscribed ranks"), s.messages());
        }
        // exactly one PU per rank is not oversubscribed
        LauncherScope s = LauncherScope.compute(two, two.allowed(), new LocalRank(1, 2, "Open MPI", false), null, null, false);
        assertEquals(CpuSet.of(1), s.scope());
        assertEquals(LauncherScope.Decision.SPLIT, s.decision());
        // the allowed set, not the machine, counts: 3 ranks on 2 allowed PUs of 32
        s = LauncherScope.compute(BIG, CpuSet.parse("6-7"), new LocalRank(0, 3, "Slurm", false), null, null, false);
        assertEquals(CpuSet.parse("6-7"), s.scope());
        assertTrue(s.oversubscribed());
        // rank-split-at: 3 ranks on a 2-PU piece of 2 NUMA pieces is oversubscribed, whatever the rank
        Topology small = SyntheticSpec.parse("numa:2 core:2");
        for (int r = 0; r < 6; r++) {
            s = LauncherScope.compute(small, CpuSet.parse("0-3"), new LocalRank(r, 6, "x", false), HwType.NUMANODE, null, false);
            assertTrue(s.oversubscribed(), "rank " + r + ": " + s);
            assertEquals(CpuSet.parse("0-3"), s.scope());
        }
        // a quota that leaves fewer PUs than ranks
        s = LauncherScope.compute(BIG, BIG.allowed(), new LocalRank(0, 4, "x", false), null, 2.0, true);
        assertTrue(s.oversubscribed());
        assertEquals(CpuSet.parse("0-1"), s.scope());
    }

    @Test
    void launchersNoBindingIsTheOffSwitch() {
        assertEquals("OMPI_MCA_hwloc_base_binding_policy=none", LocalRank.detect(null, Map.of("OMPI_COMM_WORLD_LOCAL_RANK", "1",
                "OMPI_COMM_WORLD_LOCAL_SIZE", "2", "OMPI_MCA_hwloc_base_binding_policy", "none")).noBinding());
        assertNull(LocalRank.detect(null, Map.of("OMPI_COMM_WORLD_LOCAL_RANK", "1", "OMPI_COMM_WORLD_LOCAL_SIZE", "2",
                "OMPI_MCA_hwloc_base_binding_policy", "core")).noBinding());
        LocalRank slurm = LocalRank.detect(null, Map.of("SLURM_LOCALID", "1", "SLURM_NTASKS_PER_NODE", "2", "SLURM_CPU_BIND_TYPE", "none,"));
        assertEquals("SLURM_CPU_BIND_TYPE=none,", slurm.noBinding());
        assertFalse(slurm.launcherBound());
        slurm = LocalRank.detect(null, Map.of("SLURM_LOCALID", "1", "SLURM_NTASKS_PER_NODE", "2", "SLURM_CPU_BIND", "quiet,none",
                "SLURM_CPU_BIND_TYPE", "quiet,none"));
        assertEquals("SLURM_CPU_BIND_TYPE=quiet,none", slurm.noBinding());
        assertFalse(slurm.launcherBound(), "no binding wins over a bind type that does not start with none");
        assertNull(LocalRank.detect(null, Map.of("SLURM_LOCALID", "1", "SLURM_NTASKS_PER_NODE", "2", "SLURM_CPU_BIND_TYPE", "mask_cpu:")).noBinding());

        for (int r = 0; r < 4; r++) {
            LocalRank rank = new LocalRank(r, 4, "Open MPI", false, "OMPI_MCA_hwloc_base_binding_policy=none");
            LauncherScope s = LauncherScope.compute(BIG, BIG.allowed(), rank, null, null, false);
            assertEquals(BIG.allowed(), s.scope(), "no split among ranks");
            assertEquals(LauncherScope.Decision.UNBOUND_LAUNCHER_NONE, s.decision());
            assertTrue(s.messages().isEmpty(), "the user asked for it: verbose only " + s.messages());
            assertTrue(s.detail().contains("the launcher was told not to bind (OMPI_MCA_hwloc_base_binding_policy=none)"), s.detail());
            // also when oversubscribed: the user's word first
            s = LauncherScope.compute(SyntheticSpec.parse("core:2"), CpuSet.parse("0-1"), rank, null, null, false);
            assertEquals(LauncherScope.Decision.UNBOUND_LAUNCHER_NONE, s.decision());
        }
    }

    @Test
    void launcherBindingIsTheScope() {
        CpuSet bound = CpuSet.parse("4-5");
        LauncherScope s = LauncherScope.compute(BIG, bound, new LocalRank(2, 16, "Slurm", true), null, null, false);
        assertEquals(bound, s.scope());
        assertTrue(s.launcherBound());
        // the launcher says it bound, but the process may use the whole node: split as usual
        s = LauncherScope.compute(BIG, BIG.allowed(), new LocalRank(1, 2, "Open MPI", true), null, null, false);
        assertEquals(CpuSet.parse("16-31"), s.scope());
        assertFalse(s.launcherBound());
        // a restricted set without the launcher saying it bound: split that set
        s = LauncherScope.compute(BIG, CpuSet.parse("0-7"), new LocalRank(1, 2, "Open MPI", false), null, null, false);
        assertEquals(CpuSet.parse("4-7"), s.scope());
    }

    @Test
    void quota() {
        LauncherScope s = LauncherScope.compute(BIG, BIG.allowed(), null, null, 2.5, false);
        assertEquals(BIG.allowed(), s.scope());
        assertTrue(s.messages().get(0).startsWith("CPU quota 2.50 CPUs < 32 allowed PUs"), s.messages().toString());
        s = LauncherScope.compute(BIG, BIG.allowed(), null, null, 2.5, true);
        assertEquals(CpuSet.parse("0-2"), s.scope());
        s = LauncherScope.compute(BIG, BIG.allowed(), new LocalRank(1, 2, "x", false), null, 4.0, true);
        assertEquals(CpuSet.parse("2-3"), s.scope(), "quota first, then the split by rank");
        assertTrue(LauncherScope.compute(BIG, BIG.allowed(), null, null, 32.0, true).messages().isEmpty());
    }
}
