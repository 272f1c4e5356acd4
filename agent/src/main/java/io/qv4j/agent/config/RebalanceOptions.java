package io.qv4j.agent.config;

import java.util.Locale;
import java.util.Map;

/**
 * {@code rebalance=DURATION} and {@code rebalance-threshold=F}: every period the agent measures the
 * pinned pools' CPU time and re-splits the JVM scope among them in proportion to load, when the
 * shares differ from the loads by more than the threshold.
 *
 * @param periodMillis how often; 0 = off (the default)
 * @param threshold    the imbalance (largest |PU share − load share| of a pool) that triggers a re-split
 */
public record RebalanceOptions(long periodMillis, double threshold) {

    public static final double DEFAULT_THRESHOLD = 0.2;
    public static final RebalanceOptions OFF = new RebalanceOptions(0, DEFAULT_THRESHOLD);

    public boolean on() {
        return periodMillis > 0;
    }

    static RebalanceOptions parse(Map<String, String> m) throws OptionException {
        long period = 0;
        if (m.containsKey("rebalance")) period = duration("rebalance", m.get("rebalance"));
        double threshold = DEFAULT_THRESHOLD;
        if (m.containsKey("rebalance-threshold")) {
            String v = m.get("rebalance-threshold");
            threshold = PolicyWords.decimal(v.strip());
            if (!(threshold > 0 && threshold < 1)) {
                throw new OptionException("bad value rebalance-threshold=" + v + " (allowed: a fraction between 0 and 1, e.g. 0.2)");
            }
        }
        return period == 0 && threshold == DEFAULT_THRESHOLD ? OFF : new RebalanceOptions(period, threshold);
    }

    /** {@code 500ms}, {@code 2s}, {@code 1.5s}, {@code 1m}; {@code off} or {@code 0} = off. Between 10 ms and 1 hour. */
    static long duration(String key, String v) throws OptionException {
        String s = v.strip().toLowerCase(Locale.ROOT);
        if (s.equals("off") || s.equals("false") || s.equals("0")) return 0;
        double scale;
        String num;
        if (s.endsWith("ms")) {
            scale = 1;
            num = s.substring(0, s.length() - 2);
        } else if (s.endsWith("s")) {
            scale = 1000;
            num = s.substring(0, s.length() - 1);
        } else if (s.endsWith("m")) {
            scale = 60_000;
            num = s.substring(0, s.length() - 1);
        } else {
            num = null;
            scale = 0;
        }
        double millis = num == null ? Double.NaN : PolicyWords.decimal(num.strip()) * scale;
        if (!(millis >= 10 && millis <= 3_600_000)) {
            throw new OptionException("bad value " + key + "=" + v + " (allowed: off, or a period from 10ms to 1h such as 500ms, 2s, 1m)");
        }
        return Math.round(millis);
    }
}
