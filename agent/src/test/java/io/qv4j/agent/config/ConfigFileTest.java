package io.qv4j.agent.config;

import io.qv4j.api.Color;
import io.qv4j.api.Kind;
import io.qv4j.api.Memory;
import io.qv4j.api.PlacementSpec;
import io.qv4j.topology.HwType;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One read of the config file: options and rules, errors with file and line. */
class ConfigFileTest {

    static final String FILE = """
            # options and rules side by side
            split-at = numa
            qv.verbose = true
            rule.io.match.thread = io-*
            rule.io.split-at = pu
            rule.io.color = packed
            rule.solver.match.creator = com.acme.Solver#start*
            rule.solver.color = 2
            rule.solver.weight = 3
            rule.fj.common-pool = on
            """;

    @Test
    void optionsAndRulesComeFromOneRead() throws Exception {
        ConfigFile f = ConfigFile.parse("qv.properties", FILE);
        assertEquals(Map.of("split-at", "numa", "verbose", "true"), f.options());
        assertEquals(3, f.rules().list().size());
        Rule io = f.rules().list().get(0);
        assertEquals("io", io.name());
        assertEquals("qv.properties:4", io.where());
        assertEquals(new Policy(HwType.PU, 0, Color.PACKED, -1, null, -1, null, null, "rule io (qv.properties:4)"), io.policy());
        Rule solver = f.rules().list().get(1);
        assertEquals(2, solver.policy().ordinal());
        assertTrue(solver.weighted());
        assertEquals(3.0, solver.weight());
    }

    @Test
    void aRulesNumbersAreAsciiDigitsOnly() throws Exception {
        for (String v : new String[] {"tasks=\u0663", "tasks=+3", "split=\u0663", "kind=\u0661", "color=\u0662"}) {
            assertThrows(OptionException.class, () -> ConfigFile.parse("f", "rule.a.match.thread=io-*\nrule.a." + v + "\n"), v);
        }
        assertEquals("a", ConfigFile.parse("f", "rule.a.match.thread=io-*\nrule.a.tasks=3\n").rules().match("io-1", "x", null, false).name());
    }

    @Test
    void theFirstMatchingRuleWinsInFileOrder() throws Exception {
        Rules rules = ConfigFile.parse("f", "rule.a.match.thread=io-*\nrule.a.split=2\nrule.b.match.thread=io-1*\nrule.b.split=3\n").rules();
        assertEquals("a", rules.match("io-12", "x", null, false).name());
        assertNull(rules.match("cpu-1", "x", null, false));
        Rules byCreator = ConfigFile.parse("f", "rule.s.match.creator=com.acme.Solver\nrule.s.split=2\n").rules();
        assertEquals("s", byCreator.match("t", "x", "com.acme.Solver#run", false).name());
        assertNull(byCreator.match("t", "x", "com.acme.Other#run", false));
    }

    @Test
    void theCommonPoolMatchesOnlyRulesThatSayCommonPool() throws Exception {
        Rules rules = ConfigFile.parse("f", "rule.all.match.thread=*\nrule.all.split=2\nrule.fj.common-pool=on\n").rules();
        assertEquals("fj", rules.match("ForkJoinPool.commonPool-worker-1", "java.util.concurrent.ForkJoinPool", null, true).name());
        assertEquals("all", rules.match("ForkJoinPool-1-worker-1", "java.util.concurrent.ForkJoinPool", null, false).name());
    }

    @Test
    void aRulesKindIsItsOwnAndTheRestComesFromTheOptions() throws Exception {
        Rules rules = ConfigFile.parse("f", "rule.bg.match.thread=bg-*\nrule.bg.kind=efficiency\nrule.fast.match.thread=fast-*\nrule.fast.kind=1\n").rules();
        PlacementSpec options = PlacementSpec.split(4).kind(Kind.ANY);
        assertEquals("split=4 color=spread kind=efficiency", rules.match("bg-1", "x", null, false).policy().resolve(options).toString());
        assertEquals("split=4 color=spread kind=1", rules.match("fast-1", "x", null, false).policy().resolve(options).toString());
        assertEquals("split-at=numa color=spread kind=any", new Policy(HwType.NUMANODE, 0, null, -1, null, -1, null, null, "r").resolve(options).toString());
        assertEquals("config=f:2: rule bg: bad value kind=purple (allowed: auto, performance, efficiency, any, or a CPU kind's efficiency rank 0, 1, ...)",
                assertThrows(OptionException.class, () -> ConfigFile.parse("f", "rule.bg.match.thread=bg-*\nrule.bg.kind=purple\n")).getMessage());
    }

    @Test
    void badRulesNameTheFileTheLineTheKeyAndWhatIsAllowed() {
        assertEquals("config=f:2: rule io: bad value color=purple (allowed: auto, packed, spread, or a piece number 0, 1, ...)",
                assertThrows(OptionException.class, () -> ConfigFile.parse("f", "rule.io.match.thread=io-*\nrule.io.color=purple\n")).getMessage());
        assertTrue(assertThrows(OptionException.class, () -> ConfigFile.parse("f", "rule.io.split-at=numa\n")).getMessage()
                .contains("rule io matches nothing"));
        assertTrue(assertThrows(OptionException.class, () -> ConfigFile.parse("f", "rule.io.match.thread=x\nrule.io.colour=spread\n")).getMessage()
                .startsWith("config=f:2: rule io: unknown key 'colour'"));
        assertTrue(assertThrows(OptionException.class, () -> ConfigFile.parse("f", "\n\nsplit_at=core\n")).getMessage()
                .startsWith("config=f:3: unknown key 'split_at'"));
        assertTrue(assertThrows(OptionException.class, () -> ConfigFile.parse("f", "rule.io.match.thread=x\nrule.io.weight=-1\n")).getMessage()
                .contains("weight=-1"));
        for (String w : new String[] {"1e3", "Infinity", "NaN", "٣", "0x1p1"}) {
            assertTrue(assertThrows(OptionException.class, () -> ConfigFile.parse("f", "rule.io.match.thread=x\nrule.io.weight=" + w + "\n")).getMessage()
                    .contains("weight=" + w), w);
        }
    }

    @Test
    void theRulesAndTheOptionsShareOneVocabulary() throws Exception {
        // every word the options take, a rule takes, and the other way round
        for (String w : new String[] {"machine", "package", "die", "numa", "l3", "l2", "l1", "core", "pu", "gpu", "nic"}) {
            ConfigFile.parse("f", "rule.r.match.thread=x\nrule.r.split-at=" + w + "\n");
            OptionsParser.parse("split-at=" + w, new Properties(), Map.of());
        }
        for (String c : new String[] {"auto", "packed", "spread", "0", "7"}) {
            ConfigFile.parse("f", "rule.r.match.thread=x\nrule.r.color=" + c + "\n");
            OptionsParser.parse("color=" + c, new Properties(), Map.of());
        }
        for (String bad : new String[] {"undefined", "-1", "socket"}) {
            assertThrows(OptionException.class, () -> ConfigFile.parse("f", "rule.r.match.thread=x\nrule.r.color=" + bad + "\n"));
            assertThrows(OptionException.class, () -> OptionsParser.parse("color=" + bad, new Properties(), Map.of()));
        }
        for (Memory m : Memory.values()) {
            String w = m.name().toLowerCase(java.util.Locale.ROOT);
            assertEquals(m, ConfigFile.parse("f", "rule.r.match.thread=x\nrule.r.memory=" + w + "\n").rules().list().get(0).policy().memory());
            assertEquals(m, OptionsParser.parse("memory=" + w, new Properties(), Map.of()).memory());
        }
        for (String bad : new String[] {"far", "numa", "0", ""}) {
            assertEquals("config=f:2: rule r: bad value memory=" + bad + " (allowed: " + PolicyWords.MEMORY + ")",
                    assertThrows(OptionException.class, () -> ConfigFile.parse("f", "rule.r.match.thread=x\nrule.r.memory=" + bad + "\n")).getMessage());
            assertEquals("bad value memory=" + bad + " (allowed: " + PolicyWords.MEMORY + ")",
                    assertThrows(OptionException.class, () -> OptionsParser.parse("memory=" + bad, new Properties(), Map.of())).getMessage());
        }
    }

    @Test
    void memoryIsLocalByDefaultAndARulesWordBeatsTheOptions() throws Exception {
        assertEquals(Memory.LOCAL, OptionsParser.parse("", new Properties(), Map.of()).memory());
        Policy unsaid = new Policy(null, 0, null, -1, null, -1, null, null, "r");
        Policy bind = new Policy(null, 0, null, -1, null, -1, null, Memory.BIND, "r");
        assertEquals(Memory.INTERLEAVE, unsaid.memory(Memory.INTERLEAVE));
        assertEquals(Memory.BIND, bind.memory(Memory.INTERLEAVE));
    }

    @Test
    void aRulesPolicyFillsWhatItDoesNotSayFromTheOptions() {
        PlacementSpec options = PlacementSpec.split(4).ordinal(1);
        assertEquals("split=4 color=packed", new Policy(null, 0, Color.PACKED, -1, null, -1, null, null, "r").resolve(options).toString());
        assertEquals("split-at=numa color=1", new Policy(HwType.NUMANODE, 0, null, -1, null, -1, null, null, "r").resolve(options).toString());
        assertEquals("split=4 color=3", new Policy(null, 0, null, 3, null, -1, null, null, "r").resolve(options).toString());
    }

    @Test
    void aHugeConfigFileIsRefusedWithoutReadingItAll() throws Exception {
        Path f = Files.createTempFile("qv-big", ".properties");
        try {
            Files.write(f, new byte[ConfigFile.MAX_BYTES + 10]);
            assertTrue(assertThrows(OptionException.class, () -> ConfigFile.read(f.toString())).getMessage().contains("larger than"));
        } finally {
            Files.delete(f);
        }
    }
}
