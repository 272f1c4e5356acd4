package io.qv4j.agent.config;

import io.qv4j.agent.cli.plan.TopologyFixtureTest;
import io.qv4j.agent.platform.TopologyInput;
import io.qv4j.topology.Topology;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** {@code kind=N} checked against the machine once its topology is known: the option error, with the kinds it has. */
class MissingKindTest {

    static String badKind(String options, Topology t) throws Exception {
        return PolicyWords.missingKind(OptionsParser.parse(options, new Properties(), Map.of()).policy(), t);
    }

    @Test
    void aKindThisMachineLacksIsAnOptionErrorNamingItsKinds() throws Exception {
        Topology oneKind = TopologyInput.input("core:2 pu:1");
        assertEquals("bad value kind=1 (this machine has CPU kinds: 0 (pus 0-1))", badKind("kind=1", oneKind), "not 'cannot place pool pool-1 (...)'");
        assertNull(badKind("kind=0", oneKind));
        assertNull(badKind("kind=performance", oneKind));
        assertNull(badKind("", oneKind));
    }

    @Test
    void onAHybridMachineEachRankIsAKind() throws Exception {
        Topology three = TopologyInput.input(TopologyFixtureTest.fixtures().resolve("xml/24em64t-2n6c2t-pci-3kinds.xml").toString());
        assertNull(badKind("kind=2", three));
        String bad = badKind("kind=3", three);
        assertEquals(true, bad.startsWith("bad value kind=3 (this machine has CPU kinds: "), bad);
        assertEquals(3, bad.split("\\(pus ").length - 1, bad);
    }
}
