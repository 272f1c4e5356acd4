package io.qv4j.agent.config;

import io.qv4j.api.Color;
import io.qv4j.topology.HwType;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Strict option parsing. Sources, strongest first: {@code -Dqv.<key>}, {@code QV_<KEY>} environment
 * variables ({@code split-at} → {@code QV_SPLIT_AT}), the agent arguments ({@code key=value,key=value}),
 * a properties file ({@code config=FILE}), the defaults. Every key is checked in every source it
 * appears in: an unknown key, a bad value or an unreadable file is an {@link OptionException} whose
 * message names the key, the value and what is allowed.
 */
public final class OptionsParser {

    /** Every key, in the order the README lists them. */
    public static final List<String> KEYS = List.of("enabled", "strict", "split-at", "split", "color", "pools",
            "common-pool", "bind", "topology", "verbose", "report",
            "local-rank", "rank-split-at", "claims", "claims-dir", "respect-quota",
            "rebalance", "rebalance-threshold", "config");

    private static final String BOOLEANS = "true, false, on, off";
    private static final String SPLIT_AT = "machine, package, die, numa, l3, l2, l1, core, pu";

    private OptionsParser() {
    }

    /** The options from the running JVM's system properties and environment plus the agent arguments. */
    public static Options fromEnvironment(String agentArgs) throws OptionException {
        return parse(agentArgs, System.getProperties(), System.getenv());
    }

    /** {@code strict} as the sources say it, without failing: decides how a bad option is handled. */
    public static boolean strictRequested(String agentArgs, Properties sys, Map<String, String> env) {
        try {
            Map<String, String> merged = new LinkedHashMap<>();
            if (agentArgs != null) {
                for (String part : agentArgs.split(",")) {
                    int eq = part.indexOf('=');
                    if (eq > 0 && part.substring(0, eq).strip().equals("strict")) merged.put("strict", part.substring(eq + 1).strip());
                }
            }
            String e = env.get(envName("strict"));
            if (e != null) merged.put("strict", e);
            String s = sys.getProperty("qv.strict");
            if (s != null) merged.put("strict", s);
            String v = merged.get("strict");
            return v != null && bool("strict", v);
        } catch (OptionException | RuntimeException e) {
            return false;
        }
    }

    /** The config file named by -D, the environment or the agent arguments (in that order), or null. */
    public static String configFile(String agentArgs, Properties sys, Map<String, String> env) throws OptionException {
        String s = sys.getProperty("qv.config");
        if (s == null) s = env.get(envName("config"));
        if (s == null) s = splitArgs(agentArgs).get("config");
        return s == null || s.isBlank() ? null : s.strip();
    }

    public static Options parse(String agentArgs, Properties sys, Map<String, String> env) throws OptionException {
        Map<String, String> args = splitArgs(agentArgs);
        Map<String, String> fromEnv = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : env.entrySet()) {
            if (e.getKey().startsWith("QV_")) fromEnv.put(keyOf(e.getKey().substring(3).toLowerCase(Locale.ROOT).replace('_', '-'), "environment variable " + e.getKey()), e.getValue());
        }
        Map<String, String> fromSys = new LinkedHashMap<>();
        for (String name : sys.stringPropertyNames()) {
            if (name.startsWith("qv.")) {
                fromSys.put(keyOf(name.substring(3), "system property -D" + name), sys.getProperty(name));
            }
        }
        // The config file itself comes from the three stronger sources.
        String config = fromSys.getOrDefault("config", fromEnv.getOrDefault("config", args.get("config")));
        Map<String, String> fromFile = config == null || config.isBlank() ? Map.of() : readFile(config.strip());

        Map<String, String> merged = new LinkedHashMap<>(fromFile);
        merged.putAll(args);
        merged.putAll(fromEnv);
        merged.putAll(fromSys);
        return build(merged);
    }

    /** Parses {@code key=value,key=value}; blanks around keys and values are ignored. */
    static Map<String, String> splitArgs(String agentArgs) throws OptionException {
        Map<String, String> out = new LinkedHashMap<>();
        if (agentArgs == null || agentArgs.isBlank()) return out;
        for (String part : agentArgs.split(",", -1)) {
            if (part.isBlank()) continue;
            int eq = part.indexOf('=');
            if (eq < 0) throw new OptionException("'" + part.strip() + "' is not key=value (keys: " + String.join(", ", KEYS) + ")");
            String key = keyOf(part.substring(0, eq).strip(), "option");
            if (out.containsKey(key)) throw new OptionException("option " + key + " given twice");
            out.put(key, part.substring(eq + 1).strip());
        }
        return out;
    }

    private static String keyOf(String key, String where) throws OptionException {
        if (!KEYS.contains(key)) {
            throw new OptionException("unknown " + where + (where.equals("option") ? " '" + key + "'" : "")
                    + " (keys: " + String.join(", ", KEYS) + ")");
        }
        return key;
    }

    static String envName(String key) {
        return "QV_" + key.toUpperCase(Locale.ROOT).replace('-', '_');
    }

    private static Map<String, String> readFile(String file) throws OptionException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException | RuntimeException e) {
            throw new OptionException("config=" + file + ": cannot read the file (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : p.stringPropertyNames()) {
            if (io.qv4j.agent.config.Rules.isRuleKey(name)) continue; // read by Rules, with line numbers
            String key = name.startsWith("qv.") ? name.substring(3) : name;
            if (!KEYS.contains(key) || key.equals("config")) {
                throw new OptionException("config=" + file + ": unknown key '" + name + "' (keys: "
                        + String.join(", ", KEYS.subList(0, KEYS.size() - 1)) + ")");
            }
            out.put(key, p.getProperty(name).strip());
        }
        return out;
    }

    private static Options build(Map<String, String> m) throws OptionException {
        Options d = Options.defaults();
        boolean enabled = m.containsKey("enabled") ? bool("enabled", m.get("enabled")) : d.enabled();
        boolean strict = m.containsKey("strict") ? bool("strict", m.get("strict")) : d.strict();
        HwType splitAt = d.splitAt();
        if (m.containsKey("split-at")) {
            String v = m.get("split-at");
            try {
                splitAt = HwType.parse(v);
            } catch (IllegalArgumentException e) {
                splitAt = null;
            }
            if (splitAt == null || splitAt.isDevice()) throw bad("split-at", v, SPLIT_AT);
        }
        int split = d.split();
        if (m.containsKey("split")) {
            String v = m.get("split");
            try {
                split = Integer.parseInt(v);
            } catch (NumberFormatException e) {
                split = -1;
            }
            if (split < 1 || split > 65536) throw bad("split", v, "a number of pieces, 1 to 65536");
        }
        Color color = d.color();
        if (m.containsKey("color")) {
            String v = m.get("color");
            color = switch (v.toLowerCase(Locale.ROOT)) {
                case "auto" -> Color.AUTO;
                case "packed" -> Color.PACKED;
                case "spread" -> Color.SPREAD;
                default -> throw bad("color", v, "auto, packed, spread");
            };
        }
        List<String> pools = d.pools();
        if (m.containsKey("pools")) {
            String v = m.get("pools");
            List<String> globs = new ArrayList<>();
            for (String g : v.split("[|;]", -1)) {
                if (g.isBlank()) throw bad("pools", v, "thread-name globs separated by '|' or ';', e.g. app-*|worker-?");
                globs.add(g.strip());
            }
            pools = List.copyOf(globs);
        }
        boolean commonPool = m.containsKey("common-pool") ? bool("common-pool", m.get("common-pool")) : d.commonPool();
        Options.Bind bind = d.bind();
        if (m.containsKey("bind")) {
            String v = m.get("bind");
            bind = switch (v.toLowerCase(Locale.ROOT)) {
                case "on", "true" -> Options.Bind.ON;
                case "off", "false" -> Options.Bind.OFF;
                case "dry-run", "dryrun" -> Options.Bind.DRY_RUN;
                default -> throw bad("bind", v, "on, off, dry-run");
            };
        }
        String topology = d.topology();
        if (m.containsKey("topology")) {
            topology = m.get("topology");
            if (topology.isBlank()) throw bad("topology", topology, "a synthetic spec such as 'package:2 core:4 pu:2' or an hwloc XML file");
            if (!topology.contains(":") || Files.exists(Path.of(topology))) {
                if (!Files.isReadable(Path.of(topology)) || Files.isDirectory(Path.of(topology))) {
                    throw new OptionException("topology=" + topology + ": cannot read the file (allowed: a synthetic spec such as 'package:2 core:4 pu:2' or an hwloc XML file)");
                }
            }
            if (bind == Options.Bind.ON) {
                throw new OptionException("topology=" + topology + " describes another machine: it needs bind=dry-run or bind=off");
            }
        }
        boolean verbose = m.containsKey("verbose") ? bool("verbose", m.get("verbose")) : d.verbose();
        String report = d.report();
        if (m.containsKey("report")) {
            report = m.get("report");
            Path p = report.isBlank() ? null : Path.of(report).toAbsolutePath();
            if (p == null || Files.isDirectory(p) || p.getParent() == null || !Files.isDirectory(p.getParent())) {
                throw bad("report", report, "a file in an existing directory");
            }
        }
        return new Options(enabled, strict, splitAt, split, color, pools, commonPool, bind, topology, verbose, report,
                node(m), m.containsKey("rebalance") || m.containsKey("rebalance-threshold") ? RebalanceOptions.parse(m) : null);
    }

    /** The keys of {@link NodeOptions}. */
    private static NodeOptions node(Map<String, String> m) throws OptionException {
        NodeOptions d = NodeOptions.defaults();
        int[] localRank = d.localRank();
        if (m.containsKey("local-rank")) {
            String v = m.get("local-rank");
            int slash = v.indexOf('/');
            try {
                localRank = new int[] {Integer.parseInt(v.substring(0, slash).strip()), Integer.parseInt(v.substring(slash + 1).strip())};
            } catch (RuntimeException e) {
                localRank = null;
            }
            if (localRank == null || localRank[1] < 1 || localRank[0] < 0 || localRank[0] >= localRank[1]) {
                throw bad("local-rank", v, "N/M with 0 <= N < M, e.g. 1/4");
            }
        }
        HwType rankSplitAt = d.rankSplitAt();
        if (m.containsKey("rank-split-at")) {
            String v = m.get("rank-split-at");
            if (!v.equalsIgnoreCase("balanced")) {
                try {
                    rankSplitAt = HwType.parse(v);
                } catch (IllegalArgumentException e) {
                    rankSplitAt = null;
                }
                if (rankSplitAt == null || rankSplitAt.isDevice()) throw bad("rank-split-at", v, "balanced, " + SPLIT_AT);
            }
        }
        NodeOptions.Claims claims = d.claims();
        if (m.containsKey("claims")) {
            String v = m.get("claims");
            claims = switch (v.toLowerCase(Locale.ROOT)) {
                case "auto" -> NodeOptions.Claims.AUTO;
                case "node", "on", "true" -> NodeOptions.Claims.NODE;
                case "off", "false" -> NodeOptions.Claims.OFF;
                default -> throw bad("claims", v, "auto, node, off");
            };
        }
        String claimsDir = d.claimsDir();
        if (m.containsKey("claims-dir")) {
            claimsDir = m.get("claims-dir");
            if (claimsDir.isBlank() || !Path.of(claimsDir).isAbsolute()) throw bad("claims-dir", claimsDir, "an absolute directory path");
        }
        boolean respectQuota = m.containsKey("respect-quota") ? bool("respect-quota", m.get("respect-quota")) : d.respectQuota();
        return new NodeOptions(localRank, rankSplitAt, claims, claimsDir, respectQuota);
    }

    private static boolean bool(String key, String v) throws OptionException {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "true", "on", "yes", "1" -> true;
            case "false", "off", "no", "0" -> false;
            default -> throw bad(key, v, BOOLEANS);
        };
    }

    private static OptionException bad(String key, String value, String allowed) {
        return new OptionException("bad value " + key + "=" + value + " (allowed: " + allowed + ")");
    }
}
