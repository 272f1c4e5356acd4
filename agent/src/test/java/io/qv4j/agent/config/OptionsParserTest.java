package io.qv4j.agent.config;

import io.qv4j.api.Color;
import io.qv4j.api.Kind;
import io.qv4j.topology.HwType;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OptionsParserTest {

    static Options parse(String args) throws OptionException {
        return OptionsParser.parse(args, new Properties(), Map.of());
    }

    @Test
    void carriersAreOffByDefaultAndTakeJvmOrOneObject() throws Exception {
        assertEquals(null, parse("").carriers());
        assertEquals(null, parse("carriers=off").carriers());
        assertEquals("jvm", parse("carriers=JVM").carriers());
        assertEquals("numa:0", parse("carriers=numa:0").carriers());
        assertEquals("package:1", parse("carriers=PACKAGE:1").carriers());
        for (String bad : new String[] {"carriers=numa", "carriers=numa:-1", "carriers=purple:0", "carriers=numa:x"}) {
            try {
                parse(bad);
                throw new AssertionError(bad + " accepted");
            } catch (OptionException expected) {
                assertTrue(expected.getMessage().contains("carriers="), expected.getMessage());
            }
        }
    }

    @Test
    void aReportPathGivesEachJvmItsOwnFileThroughPercentP() throws Exception {
        Path dir = Files.createTempDirectory("qv-report");
        Options o = parse("report=" + dir + "/qv-%p.json");
        assertEquals(dir + "/qv-4242.json", o.report(4242));
        assertEquals(dir + "/plain.json", parse("report=" + dir + "/plain.json").report(4242));
        assertEquals(null, parse("").report(4242));
        Files.delete(dir);
    }

    @Test
    void defaults() throws Exception {
        Options o = parse("");
        assertEquals(HwType.CORE, o.policy().splitAt());
        assertEquals(Color.SPREAD, o.policy().color());
        assertEquals(Options.Bind.ON, o.bind());
        assertTrue(o.enabled());
        assertFalse(o.strict());
    }

    @Test
    void precedenceSystemOverEnvOverArgsOverFile() throws Exception {
        Path f = Files.createTempFile("qv", ".properties");
        Files.writeString(f, "color=auto\nsplit-at=numa\nverbose=true\nbind=off\n");
        Properties sys = new Properties();
        sys.setProperty("qv.color", "packed");
        Options o = OptionsParser.parse("config=" + f + ",color=spread,split-at=l3", sys, Map.of("QV_SPLIT_AT", "pu", "QV_COLOR", "auto"));
        assertEquals(Color.PACKED, o.policy().color());
        assertEquals(HwType.PU, o.policy().splitAt());
        assertTrue(o.verbose());
        assertEquals(Options.Bind.OFF, o.bind());
        Files.delete(f);
    }

    @Test
    void kindTakesAWordOrAnEfficiencyRankAndSurvivesALaterSplitAt() throws Exception {
        assertEquals(Kind.AUTO, parse("").policy().kind());
        assertEquals("split-at=numa color=spread kind=efficiency", parse("kind=efficiency,split-at=numa").policy().toString());
        assertEquals("split=4 color=packed kind=1", parse("split=4,color=packed,kind=1").policy().toString());
        assertEquals(Kind.ANY, parse("kind=ANY").policy().kind());
    }

    @Test
    void badInputNamesKeyValueAndAllowed() throws Exception {
        OptionException e = assertThrows(OptionException.class, () -> parse("color=purple"));
        assertEquals("bad value color=purple (allowed: auto, packed, spread, or a piece number 0, 1, ...)", e.getMessage());
        assertEquals("bad value kind=purple (allowed: auto, performance, efficiency, any, or a CPU kind's efficiency rank 0, 1, ...)",
                assertThrows(OptionException.class, () -> parse("kind=purple")).getMessage());
        assertThrows(OptionException.class, () -> parse("kind=-1"));
        assertTrue(assertThrows(OptionException.class, () -> parse("colour=spread")).getMessage().contains("unknown option 'colour'"));
        assertTrue(assertThrows(OptionException.class, () -> parse("config=/nonexistent/x")).getMessage().startsWith("config=/nonexistent/x: cannot read"));
        assertEquals(List.of("QV_NOPE"), OptionsParser.read("", new Properties(), Map.of("QV_NOPE", "1", "QV_COLOR", "packed")).ignoredEnv());
        assertThrows(OptionException.class, () -> parse("topology=package:2 core:2"));
        assertThrows(OptionException.class, () -> parse("split-at=socket"));
        assertThrows(OptionException.class, () -> parse("color=undefined"));
        assertThrows(OptionException.class, () -> parse("color=-1"));
        assertThrows(OptionException.class, () -> parse("pools=a||b"));
    }

    @Test
    void numbersAreAsciiDigitsOnly() throws Exception {
        String three = "\u0663", zero = "\u0660", one = "\u0661", four = "\u0664"; // ARABIC-INDIC DIGITs
        for (String v : new String[] {"kind=" + three, "split=" + three, "color=" + three, "split=+3", "kind=+1", "color=1_0",
            "local-rank=" + one + "/" + four, "local-rank=1/+4", "carriers=numa:" + zero, "carriers=numa:+0", "split=99999999999"}) {
            assertThrows(OptionException.class, () -> parse(v), v);
        }
        assertEquals("split=3 color=spread kind=3", parse("split= 3 ,kind=3").policy().toString());
        assertEquals("numa:0", parse("carriers=numa:0").carriers());
        assertEquals(3, parse("local-rank=3/4").node().localRank()[0]);
    }

    @Test
    void nodeOptions() throws Exception {
        NodeOptions d = parse("").node();
        assertEquals(NodeOptions.Claims.NODE, d.claims());
        assertEquals(null, d.localRank());
        assertEquals(null, d.rankSplitAt());
        assertFalse(d.respectQuota());
        NodeOptions n = parse("local-rank=1/4,rank-split-at=numa,claims=node,claims-dir=/tmp/x,respect-quota=true").node();
        assertEquals(1, n.localRank()[0]);
        assertEquals(4, n.localRank()[1]);
        assertEquals(HwType.NUMANODE, n.rankSplitAt());
        assertEquals(NodeOptions.Claims.NODE, n.claims());
        assertEquals("/tmp/x", n.claimsDir());
        assertTrue(n.respectQuota());
        assertEquals(null, parse("rank-split-at=balanced").node().rankSplitAt());
        assertEquals("bad value local-rank=4/4 (allowed: N/M with 0 <= N < M, e.g. 1/4)",
                assertThrows(OptionException.class, () -> parse("local-rank=4/4")).getMessage());
        assertThrows(OptionException.class, () -> parse("local-rank=x"));
        assertThrows(OptionException.class, () -> parse("claims=maybe"));
        assertThrows(OptionException.class, () -> parse("claims-dir=relative/dir"));
        assertThrows(OptionException.class, () -> parse("rank-split-at=gpu"));
        assertEquals(NodeOptions.Claims.OFF, OptionsParser.parse("", new Properties(), Map.of("QV_CLAIMS", "off")).node().claims());
    }

    @Test
    void claimsRefreshIsAMinuteByDefaultAPeriodOrOff() throws Exception {
        assertEquals(60_000, parse("").node().claimsRefreshMillis());
        assertEquals(500, parse("claims-refresh=500ms").node().claimsRefreshMillis());
        assertEquals(0, parse("claims-refresh=off").node().claimsRefreshMillis());
        assertThrows(OptionException.class, () -> parse("claims-refresh=1ms"));
        assertThrows(OptionException.class, () -> parse("claims-refresh=soon"));
    }

    @Test
    void strictIsFoundEvenWhenOtherOptionsAreBad() {
        assertTrue(assertThrows(OptionException.class, () -> parse("color=purple,strict=true")).strict());
        assertTrue(assertThrows(OptionException.class, () -> parse("strict=true,colr=purple")).strict());
        assertFalse(assertThrows(OptionException.class, () -> parse("color=purple")).strict());
    }

    /** Fuzz: random option strings never throw anything but OptionException, and messages are one line. */
    @Test
    void fuzz() {
        Random rnd = new Random(4);
        String[] keys = {"split-at", "split", "color", "pools", "common-pool", "bind", "topology", "verbose", "enabled", "strict", "report", "config", "x", "", "COLOR", "split_at"};
        String[] values = {"core", "pu", "numa", "spread", "packed", "auto", "on", "off", "dry-run", "true", "false", "-1", "0", "3", "99999999999", "", "=", "a*|b?", "package:2 core:2", "/nonexistent", "/tmp", "\u00e9", " ", "core,", "gpu"};
        int ok = 0;
        for (int i = 0; i < 500; i++) {
            StringBuilder sb = new StringBuilder();
            int n = rnd.nextInt(5);
            for (int k = 0; k < n; k++) {
                if (k > 0) sb.append(rnd.nextInt(10) == 0 ? ";" : ",");
                sb.append(keys[rnd.nextInt(keys.length)]);
                if (rnd.nextInt(8) != 0) sb.append('=');
                sb.append(values[rnd.nextInt(values.length)]);
            }
            try {
                parse(sb.toString());
                ok++;
            } catch (OptionException e) {
                assertFalse(e.getMessage().contains("\n"), sb.toString());
            } catch (Throwable t) {
                throw new AssertionError("'" + sb + "' threw " + t, t);
            }
        }
        assertTrue(ok > 10);
    }
}
