package io.qv4j.agent.options;

import io.qv4j.api.Color;
import io.qv4j.api.HwType;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
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
    void defaults() throws Exception {
        Options o = parse("");
        assertEquals(HwType.CORE, o.splitAt());
        assertEquals(Color.SPREAD, o.color());
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
        assertEquals(Color.PACKED, o.color());
        assertEquals(HwType.PU, o.splitAt());
        assertTrue(o.verbose());
        assertEquals(Options.Bind.OFF, o.bind());
        Files.delete(f);
    }

    @Test
    void badInputNamesKeyValueAndAllowed() {
        OptionException e = assertThrows(OptionException.class, () -> parse("color=purple"));
        assertEquals("bad value color=purple (allowed: auto, packed, spread)", e.getMessage());
        assertTrue(assertThrows(OptionException.class, () -> parse("colour=spread")).getMessage().contains("unknown option 'colour'"));
        assertTrue(assertThrows(OptionException.class, () -> parse("config=/nonexistent/x")).getMessage().startsWith("config=/nonexistent/x: cannot read"));
        assertTrue(assertThrows(OptionException.class, () -> OptionsParser.parse("", new Properties(), Map.of("QV_NOPE", "1"))).getMessage().contains("QV_NOPE"));
        assertThrows(OptionException.class, () -> parse("topology=package:2 core:2"));
        assertThrows(OptionException.class, () -> parse("split-at=gpu"));
        assertThrows(OptionException.class, () -> parse("pools=a||b"));
    }

    @Test
    void strictIsFoundEvenWhenOtherOptionsAreBad() {
        assertTrue(OptionsParser.strictRequested("color=purple,strict=true", new Properties(), Map.of()));
        assertFalse(OptionsParser.strictRequested("color=purple", new Properties(), Map.of()));
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
