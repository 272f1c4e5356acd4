package io.qv4j.agent.place;

import io.qv4j.agent.config.OptionsParser;
import io.qv4j.agent.config.Rules;
import io.qv4j.testapps.AppPools;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.SyntheticSpec;
import io.qv4j.topology.Topology;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ThreadPoolExecutor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code memory=}: each pinned worker sets its memory policy on itself as it binds, on a synthetic
 * 2-package, 4-node machine with a recording binder (DESIGN.md §7.3).
 */
class MemoryBindingTest {

    /** 2 packages x 2 nodes x 2 cores: node n holds PUs 2n and 2n+1. */
    static final Topology MACHINE = SyntheticSpec.parse("package:2 numa:2 core:2 pu:1");

    final RecordingBinder binder = new RecordingBinder();
    final List<ThreadPoolExecutor> made = new ArrayList<>();

    List<Worker> pool(String options, int n) throws Exception {
        Placer p = new Placer(OptionsParser.parse(options, new Properties(), Map.of()), Rules.none(), 1000);
        p.ready(new Env(MACHINE, MACHINE.allowed(), binder, null, null, false));
        ThreadPoolExecutor pool = AppPools.fixed(n, p::poolCreated);
        made.add(pool);
        PlacerTest.start(p, pool, "app", n);
        return PlacerTest.pool(p, pool).workers();
    }

    @Test
    void withBindEachWorkerOfANumaSplitBindsItsPagesToItsOwnNode() throws Exception {
        List<Worker> ws = pool("split-at=numa,color=packed,memory=bind", 4);
        assertEquals(List.of("BIND 0", "BIND 1", "BIND 2", "BIND 3"), binder.memory);
        assertEquals(CpuSet.of(2), ws.get(2).memoryNodes());
    }

    @Test
    void withInterleaveEveryWorkerSpreadsItsPagesOverTheNodesOfItsPoolsPieces() throws Exception {
        pool("split-at=numa,color=packed,memory=interleave", 2);
        assertEquals(List.of("INTERLEAVE 0-1", "INTERLEAVE 0-1"), binder.memory, "a packed pool of 2 takes nodes 0 and 1");
    }

    @Test
    void aCoreSizedPieceBindsToTheNodeThatHoldsTheCore() throws Exception {
        pool("split-at=core,color=spread,memory=bind", 2);
        assertEquals(List.of("BIND 0", "BIND 2"), binder.memory, "spread: one core on each package, nodes 0 and 2");
    }

    @Test
    void localTheDefaultMakesNoCall() throws Exception {
        List<Worker> ws = pool("split-at=numa", 4);
        assertEquals(List.of(), binder.memory);
        assertNull(ws.get(0).memoryNodes());
    }

    @Test
    void onceSomeWorkerBoundItsPagesAWorkerOfALocalPoolGetsTheKernelsDefaultBack() throws Exception {
        Placer p = new Placer(OptionsParser.parse("split-at=numa,memory=bind", new Properties(), Map.of()),
                io.qv4j.agent.config.ConfigFileAccess.rules("rule.l.match.thread = l-*\nrule.l.memory = local\n"), 1000);
        p.ready(new Env(MACHINE, MACHINE.allowed(), binder, null, null, false));
        ThreadPoolExecutor local = AppPools.fixed(1, p::poolCreated);
        made.add(local);
        PlacerTest.start(p, local, "l", 1);
        assertEquals(List.of(), binder.memory, "no policy set yet: nothing to undo");
        ThreadPoolExecutor bound = AppPools.fixed(1, p::poolCreated);
        made.add(bound);
        PlacerTest.start(p, bound, "b", 1);
        ThreadPoolExecutor later = AppPools.fixed(1, p::poolCreated);
        made.add(later);
        PlacerTest.start(p, later, "l", 1);
        assertEquals(List.of("BIND 1", "LOCAL "), binder.memory, "a thread may inherit its creator's policy");
    }

    @Test
    void aRefusalLeavesTheWorkerOnTheKernelsDefault() throws Exception {
        binder.memoryAnswer = 22;
        List<Worker> ws = pool("split-at=numa,memory=bind", 2);
        assertEquals(2, binder.memory.size());
        assertNull(ws.get(0).memoryNodes());
        assertEquals(2, binder.calls.size(), "the workers are pinned all the same");
    }

    @Test
    void aWorkerMovedToAnotherNodeBindsItsNewPagesThereAtItsNextTask() throws Exception {
        Placer p = new Placer(OptionsParser.parse("split-at=numa,color=packed,memory=bind", new Properties(), Map.of()), Rules.none(), 1000);
        p.ready(new Env(MACHINE, MACHINE.allowed(), binder, null, null, false));
        ThreadPoolExecutor pool = AppPools.fixed(1, p::poolCreated);
        made.add(pool);
        Thread t = PlacerTest.start(p, pool, "app", 1).get(0);
        p.registry().moves.put(t, CpuSet.parse("4-5")); // as the watcher or a rebalance records a move
        assertTrue(p.rebindIfMoved(t), "it had moved");
        assertEquals(List.of("BIND 0", "BIND 2"), binder.memory);
        assertEquals(CpuSet.of(2), PlacerTest.pool(p, pool).workers().get(0).memoryNodes());
        assertFalse(p.rebindIfMoved(t), "moved once, bound once");
        assertEquals(2, binder.memory.size());
    }

    Placer jvm(String options, CpuSet scope) throws Exception {
        Placer p = new Placer(OptionsParser.parse(options, new Properties(), Map.of()), Rules.none(), 1000);
        p.ready(new Env(MACHINE, scope, binder, null, null, false));
        p.memoryForJvm();
        return p;
    }

    @Test
    void interleaveForTheJvmsPieceSpreadsTheMainThreadsPagesOverItsNodes() throws Exception {
        Placer p = jvm("split-at=numa,memory=interleave", MACHINE.allowed());
        assertEquals(List.of("INTERLEAVE 0-3"), binder.memory);
        assertEquals("interleave nodes 0-3", p.jvmMemory());
    }

    @Test
    void bindForTheJvmsPieceBindsARanksPagesToItsNodeButLeavesAWholeMachineAlone() throws Exception {
        assertEquals("bind nodes 2", jvm("split-at=numa,memory=bind", CpuSet.parse("4-5")).jvmMemory());
        assertEquals(List.of("BIND 2"), binder.memory);
        binder.memory.clear();
        assertNull(jvm("split-at=numa,memory=bind", MACHINE.allowed()).jvmMemory(), "bind over every node changes nothing but NUMA balancing");
        assertNull(jvm("split-at=numa", MACHINE.allowed()).jvmMemory());
        assertEquals(List.of(), binder.memory);
    }

    @Test
    void aThreadGivenTheJvmScopeBackGetsTheJvmsPolicyAndALocalPoolsWorkerTheKernelsDefault() throws Exception {
        Placer p = new Placer(OptionsParser.parse("split-at=numa,memory=interleave", new Properties(), Map.of()),
                io.qv4j.agent.config.ConfigFileAccess.rules("rule.l.match.thread = l-*\nrule.l.memory = local\n"), 1000);
        Env e = new Env(MACHINE, MACHINE.allowed(), binder, null, null, false);
        p.ready(e);
        p.memoryForJvm();
        ThreadPoolExecutor local = AppPools.fixed(1, p::poolCreated);
        made.add(local);
        PlacerTest.start(p, local, "l", 1);
        p.memory().reset(e);
        assertEquals(List.of("INTERLEAVE 0-3", "LOCAL ", "INTERLEAVE 0-3"), binder.memory);
    }

    @Test
    void aRefusalForTheJvmsPieceLeavesTheKernelsDefault() throws Exception {
        binder.memoryAnswer = 22;
        assertNull(jvm("split-at=numa,memory=interleave", MACHINE.allowed()).jvmMemory());
    }
}
