package io.qv4j.agent.config;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RebalanceOptionsTest {

    static RebalanceOptions parse(String args) throws OptionException {
        RebalanceOptions r = OptionsParser.parse(args, new Properties(), Map.of()).rebalance();
        return r == null ? RebalanceOptions.OFF : r;
    }

    @Test
    void offByDefault() throws Exception {
        assertNull(OptionsParser.parse("", new Properties(), Map.of()).rebalance(), "off: nothing parsed, nothing loaded");
        assertNull(Options.defaults().rebalance());
        assertFalse(parse("").on());
        assertFalse(parse("rebalance=off").on());
        assertFalse(parse("rebalance=0").on());
        assertEquals(0.2, parse("").threshold());
    }

    @Test
    void durations() throws Exception {
        assertEquals(500, parse("rebalance=500ms").periodMillis());
        assertEquals(2000, parse("rebalance=2s").periodMillis());
        assertEquals(1500, parse("rebalance=1.5s").periodMillis());
        assertEquals(60_000, parse("rebalance=1m").periodMillis());
        assertTrue(parse("rebalance=200ms").on());
        assertEquals(0.1, parse("rebalance=1s,rebalance-threshold=0.1").threshold());
        assertEquals(250, OptionsParser.parse("", new Properties(), Map.of("QV_REBALANCE", "250ms")).rebalance().periodMillis());
    }

    @Test
    void badValuesNameTheKey() {
        for (String v : new String[] {"500", "fast", "5ms", "2h", "-1s", "ms", "NaNs", "1e3ms", "Infinityms", "٥٠٠ms", "0x1p9ms", "+500ms", "500.ms"}) {
            OptionException e = assertThrows(OptionException.class, () -> parse("rebalance=" + v), v);
            assertTrue(e.getMessage().startsWith("bad value rebalance=" + v + " (allowed: off, or a period"), e.getMessage());
        }
        for (String v : new String[] {"0", "1", "-0.1", "x", "1.5", "2e-1", "NaN", "0x0.3p0", "0.٣", ".2", "0.2d"}) {
            OptionException e = assertThrows(OptionException.class, () -> parse("rebalance-threshold=" + v), v);
            assertTrue(e.getMessage().startsWith("bad value rebalance-threshold=" + v), e.getMessage());
        }
    }
}
