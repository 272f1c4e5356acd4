package io.qv4j.split;

import io.qv4j.api.Color;
import io.qv4j.topology.HwType;
import io.qv4j.api.Scope;
import io.qv4j.api.Split;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Device;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.Topology;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Properties of splits on random uniform topologies (up to 4096 PUs, SMT 1–4, random allowed
 * subsets, sometimes NUMA/L3/L2 levels and devices). Seeded: a failure names its case.
 */
class SplitPropertiesTest {

    private static final int ROUNDS = 300;

    private record Case(String name, Topology topology, Scope scope) {
    }

    private static List<Case> cases() {
        Random random = new Random(20240601);
        List<Case> out = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            String spec = TestTopologies.randomSpec(random, round < ROUNDS / 10 ? 4096 : 512);
            int pus = 1;
            for (String w : spec.split(" ")) if (!w.startsWith("gpu") && !w.startsWith("nic")) pus *= Integer.parseInt(w.split(":")[1]);
            double density = random.nextInt(3) == 0 ? 1.0 : 0.1 + 0.9 * random.nextDouble();
            CpuSet allowed = TestTopologies.randomSubset(random, pus, density);
            Topology t = TestTopologies.synthetic(spec, allowed);
            out.add(new Case(spec + " allowed " + allowed.cardinality() + "/" + pus + " (round " + round + ")", t, Scope.of(t)));
        }
        return out;
    }

    /** Pieces are disjoint and inside the scope (so inside the allowed set). */
    private static void assertDisjointInsideScope(String what, Scope scope, List<Scope> pieces) {
        CpuSet seen = CpuSet.empty();
        for (Scope p : pieces) {
            assertFalse(p.cpuset().isEmpty(), what + ": empty piece");
            assertTrue(scope.cpuset().containsAll(p.cpuset()), what + ": piece " + p.cpuset() + " outside the scope");
            assertTrue(scope.topology().allowed().containsAll(p.cpuset()), what + ": piece outside allowed");
            assertFalse(seen.intersects(p.cpuset()), what + ": piece " + p.cpuset() + " overlaps another");
            seen = seen.or(p.cpuset());
        }
    }

    private static CpuSet union(List<Scope> pieces) {
        CpuSet u = CpuSet.empty();
        for (Scope p : pieces) u = u.or(p.cpuset());
        return u;
    }

    /** Every device of the scope is owned by exactly one piece. */
    private static void assertOneOwnerPerDevice(String what, Scope scope, List<Scope> pieces, HwType onlyType) {
        for (Device d : scope.devices()) {
            if (onlyType != null && d.type() != onlyType) continue;
            long owners = pieces.stream().filter(p -> p.devices().contains(d)).count();
            assertEquals(1, owners, what + ": owners of " + d.label());
        }
    }

    private static Set<HwObject> cores(Topology t, CpuSet cpus) {
        Set<HwObject> out = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        cpus.stream().forEach(pu -> out.add(t.pu(pu).ancestor(HwType.CORE)));
        return out;
    }

    @Test
    void regularSplit_piecesDisjointCoverTheScope_sizesDifferByAtMostOneUnit_noCoreCutWithCoreUnits() {
        Random random = new Random(7);
        for (Case c : cases()) {
            int pus = c.scope().cpuset().cardinality();
            for (int k = 0; k < 3; k++) {
                int p = 1 + random.nextInt(pus);
                String what = c.name() + " split(" + p + ")";
                Split s = c.scope().split(p);
                List<Scope> pieces = s.pieces();
                assertEquals(p, pieces.size(), what);
                assertDisjointInsideScope(what, c.scope(), pieces);
                assertEquals(c.scope().cpuset(), union(pieces), what + ": pieces cover the scope");
                assertOneOwnerPerDevice(what, c.scope(), pieces, null);
                int min = Integer.MAX_VALUE, max = 0;
                Map<HwObject, Integer> coreOwner = new IdentityHashMap<>();
                for (int i = 0; i < pieces.size(); i++) {
                    CpuSet cpus = pieces.get(i).cpuset();
                    int size = s.unit() == HwType.CORE ? cores(c.topology(), cpus).size() : cpus.cardinality();
                    min = Math.min(min, size);
                    max = Math.max(max, size);
                    if (s.unit() == HwType.CORE) {
                        for (HwObject core : cores(c.topology(), cpus)) {
                            assertEquals(null, coreOwner.put(core, i), what + ": core " + core + " cut");
                        }
                    }
                }
                assertTrue(max - min <= 1, what + ": piece sizes " + min + ".." + max + " " + s.unit());
                assertEquals(s.unit() == HwType.CORE, p <= c.scope().count(HwType.CORE), what + ": unit " + s.unit());
            }
        }
    }

    @Test
    void splitAt_piecesDisjoint_eachInsideOneObject_devicesHaveOneOwner() {
        Random random = new Random(11);
        HwType[] types = {HwType.PACKAGE, HwType.NUMANODE, HwType.L3, HwType.L2, HwType.CORE, HwType.PU, HwType.GPU, HwType.NIC};
        for (Case c : cases()) {
            for (int k = 0; k < 3; k++) {
                HwType type = types[random.nextInt(types.length)];
                String what = c.name() + " splitAt(" + type + ")";
                if (c.scope().count(type) == 0) {
                    assertThrowsIllegalArgument(() -> c.scope().splitAt(type), what);
                    continue;
                }
                List<Scope> pieces = c.scope().splitAt(type).pieces();
                assertDisjointInsideScope(what, c.scope(), pieces);
                if (type.isDevice()) {
                    assertOneOwnerPerDevice(what, c.scope(), pieces, type);
                    for (Scope p : pieces) {
                        for (Device d : p.devices(type)) {
                            assertTrue(d.locality().containsAll(p.cpuset()), what + ": piece " + p.cpuset() + " outside " + d.label());
                        }
                    }
                    continue;
                }
                assertEquals(c.scope().count(type), pieces.size(), what);
                assertEquals(c.scope().cpuset(), union(pieces), what + ": pieces cover the scope");
                assertOneOwnerPerDevice(what, c.scope(), pieces, null);
                for (Scope p : pieces) {
                    HwObject o = c.topology().pu(p.cpuset().first());
                    if (type != HwType.PU) o = o.ancestor(type);
                    assertNotNull(o, what);
                    assertTrue(o.cpuset().containsAll(p.cpuset()), what + ": piece " + p.cpuset() + " not inside " + o);
                }
            }
        }
    }

    @Test
    void colors_spreadAndPackedUseDistinctPieces_autoCoversTheScope_whenTasksAtMostPieces() {
        Random random = new Random(13);
        for (Case c : cases()) {
            Split s = c.scope().split(1 + random.nextInt(Math.min(c.scope().cpuset().cardinality(), 64)));
            int p = s.pieces().size();
            int t = 1 + random.nextInt(p);
            String what = c.name() + " " + p + " pieces, " + t + " tasks";
            for (Color color : new Color[] {Color.SPREAD, Color.PACKED, Color.AUTO}) {
                List<Split.Assignment> a = s.assign(t, color);
                Set<Integer> used = new HashSet<>();
                for (Split.Assignment x : a) {
                    for (int j = x.firstPiece(); j < x.firstPiece() + x.pieceCount(); j++) {
                        assertTrue(used.add(j), what + " " + color + ": piece " + j + " used twice");
                    }
                }
                List<Scope> taskScopes = new ArrayList<>();
                for (Optional<Scope> o : s.tasks(t, color)) taskScopes.add(o.orElseThrow());
                assertDisjointInsideScope(what + " " + color, c.scope(), taskScopes);
                if (color == Color.AUTO) {
                    assertEquals(c.scope().cpuset(), union(taskScopes), what + ": AUTO covers the scope");
                    assertEquals(p, used.size(), what + ": AUTO uses every piece");
                }
            }
        }
    }

    @Test
    void resultsAreIdenticalOnRepeatedCalls_andOnAnIdenticalTopology() {
        Random random = new Random(17);
        for (Case c : cases().subList(0, 40)) {
            int p = 1 + random.nextInt(c.scope().cpuset().cardinality());
            int t = 1 + random.nextInt(2 * p);
            Topology again = TestTopologies.synthetic(c.topology().source().substring("test:".length()), c.topology().allowed());
            for (Color color : Color.values()) {
                List<String> first = render(c.scope().split(p).tasks(t, color));
                assertEquals(first, render(c.scope().split(p).tasks(t, color)), c.name() + " " + color);
                assertEquals(first, render(Scope.of(again).split(p).tasks(t, color)), c.name() + " " + color + " rebuilt");
            }
        }
    }

    private static List<String> render(List<Optional<Scope>> tasks) {
        List<String> out = new ArrayList<>();
        for (Optional<Scope> o : tasks) out.add(o.map(s -> s.cpuset() + " " + s.devices()).orElse("-"));
        return out;
    }

    private static void assertThrowsIllegalArgument(Runnable r, String what) {
        try {
            r.run();
        } catch (IllegalArgumentException expected) {
            return;
        }
        throw new AssertionError(what + ": expected IllegalArgumentException");
    }
}
