package io.qv4j.agent.config;

import io.qv4j.api.Color;
import io.qv4j.api.PlacementSpec;
import io.qv4j.topology.HwType;

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

    /** Every key, the same set as the table in docs/options.md (DocsTest checks it). */
    public static final List<String> KEYS = List.of("enabled", "strict", "split-at", "split", "color", "kind", "pools",
            "common-pool", "bind", "topology", "verbose", "report",
            "local-rank", "rank-split-at", "claims", "claims-dir", "claims-refresh", "respect-quota", "neighbours",
            "rebalance", "rebalance-threshold", "oversubscribe", "carriers", "exclusive", "exclusive-vm-threads", "memory", "config");

    /** Local ranks get CPU pieces: every type but the devices. */
    private static final String RANK_SPLIT_AT = "machine, package, die, numa, l3, l2, l1, core, pu";

    private OptionsParser() {
    }

    /** The options and rules from the running JVM's system properties and environment plus the agent arguments. */
    public static Config fromEnvironment(String agentArgs) throws OptionException {
        return read(agentArgs, System.getProperties(), System.getenv());
    }

    /** The merged options only (tests and tools). */
    public static Options parse(String agentArgs, Properties sys, Map<String, String> env) throws OptionException {
        return read(agentArgs, sys, env).options();
    }

    /**
     * Reads every source once. On a bad option the exception says whether the sources asked for
     * {@code strict=true}, judged from the values that could be read.
     */
    public static Config read(String agentArgs, Properties sys, Map<String, String> env) throws OptionException {
        OptionException[] first = new OptionException[1];
        Map<String, String> args = splitArgs(agentArgs, first);
        // the environment is shared with everything else on the machine: QV_ names that are not ours are ignored
        Map<String, String> fromEnv = new LinkedHashMap<>();
        List<String> ignored = new ArrayList<>();
        for (Map.Entry<String, String> e : env.entrySet()) {
            if (!e.getKey().startsWith("QV_")) continue;
            String key = e.getKey().substring(3).toLowerCase(Locale.ROOT).replace('_', '-');
            if (KEYS.contains(key) && e.getKey().equals(envName(key))) fromEnv.put(key, e.getValue());
            else ignored.add(e.getKey());
        }
        Map<String, String> fromSys = new LinkedHashMap<>();
        for (String name : sys.stringPropertyNames()) {
            if (name.startsWith("qv.")) put(fromSys, name.substring(3), sys.getProperty(name), "system property -D" + name, first);
        }
        Map<String, String> merged = new LinkedHashMap<>(args);
        merged.putAll(fromEnv);
        merged.putAll(fromSys);
        try {
            if (first[0] != null) throw first[0];
            // the config file itself is named by the three stronger sources
            String config = merged.get("config");
            // without a file its class (and the readers it names) stay unloaded: part of a cold start
            if (config == null || config.isBlank()) return new Config(build(merged), Rules.none(), List.copyOf(ignored));
            ConfigFile file = ConfigFile.read(config.strip());
            Map<String, String> all = new LinkedHashMap<>(file.options());
            all.putAll(merged);
            merged = all;
            return new Config(build(merged), file.rules(), List.copyOf(ignored));
        } catch (OptionException e) {
            throw e.strict(strictOf(merged));
        }
    }

    private static boolean strictOf(Map<String, String> merged) {
        try {
            return merged.containsKey("strict") && PolicyWords.bool(merged.get("strict"));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static void put(Map<String, String> m, String key, String value, String where, OptionException[] first) {
        if (KEYS.contains(key)) {
            m.put(key, value);
        } else if (first[0] == null) {
            first[0] = new OptionException("unknown " + where + (where.equals("option") ? " '" + key + "'" : "")
                    + " (keys: " + String.join(", ", KEYS) + ")");
        }
    }

    /** Parses {@code key=value,key=value}; blanks around keys and values are ignored; the first error goes to {@code first}. */
    static Map<String, String> splitArgs(String agentArgs, OptionException[] first) {
        Map<String, String> out = new LinkedHashMap<>();
        if (agentArgs == null || agentArgs.isBlank()) return out;
        for (String part : agentArgs.split(",", -1)) {
            if (part.isBlank()) continue;
            int eq = part.indexOf('=');
            String key = eq < 0 ? null : part.substring(0, eq).strip();
            if (key != null && out.containsKey(key) && first[0] == null) first[0] = new OptionException("option " + key + " given twice");
            if (eq < 0) {
                if (first[0] == null) first[0] = new OptionException("'" + part.strip() + "' is not key=value (keys: " + String.join(", ", KEYS) + ")");
            } else {
                put(out, key, part.substring(eq + 1).strip(), "option", first);
            }
        }
        return out;
    }

    static String envName(String key) {
        return "QV_" + key.toUpperCase(Locale.ROOT).replace('-', '_');
    }

    private static Options build(Map<String, String> m) throws OptionException {
        Options d = Options.defaults();
        boolean enabled = m.containsKey("enabled") ? bool("enabled", m.get("enabled")) : d.enabled();
        boolean strict = m.containsKey("strict") ? bool("strict", m.get("strict")) : d.strict();
        PlacementSpec policy = policy(m, d.policy());
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
        return new Options(enabled, strict, policy, pools, commonPool, bind, topology, verbose, report,
                node(m), m.containsKey("rebalance") || m.containsKey("rebalance-threshold") ? RebalanceOptions.parse(m) : null,
                m.containsKey("oversubscribe") ? bool("oversubscribe", m.get("oversubscribe")) : d.oversubscribe(),
                carriers(m.get("carriers")),
                m.containsKey("exclusive") ? bool("exclusive", m.get("exclusive")) : d.exclusive(),
                vmThreads(m.get("exclusive-vm-threads"), d.vmThreads()),
                m.containsKey("memory") ? memory(m.get("memory")) : d.memory());
    }

    private static io.qv4j.api.Memory memory(String v) throws OptionException {
        try {
            return PolicyWords.memory(v);
        } catch (IllegalArgumentException e) {
            throw bad("memory", v, e.getMessage());
        }
    }

    private static Options.VmThreads vmThreads(String v, Options.VmThreads d) throws OptionException {
        if (v == null) return d;
        return switch (v.strip().toLowerCase(Locale.ROOT)) {
            case "share" -> Options.VmThreads.SHARE;
            case "apart" -> Options.VmThreads.APART;
            default -> throw bad("exclusive-vm-threads", v, "share (the JVM's own threads may run on exclusive cores), apart (kept off them too)");
        };
    }

    /** {@code carriers}: off (null), {@code jvm}, or {@code TYPE:N} (the N-th object of TYPE in the JVM scope). */
    private static String carriers(String v) throws OptionException {
        if (v == null || v.strip().equalsIgnoreCase("off")) return null;
        String w = v.strip().toLowerCase(Locale.ROOT);
        if (w.equals("jvm")) return w;
        int colon = w.indexOf(':');
        try {
            if (colon > 0) {
                HwType t = PolicyWords.splitAt(w.substring(0, colon));
                int n = PolicyWords.digits(w.substring(colon + 1));
                if (n >= 0) return t.shortName() + ":" + n;
            }
        } catch (IllegalArgumentException e) {
            // below
        }
        throw bad("carriers", v, "off, jvm, or TYPE:N such as numa:0 or package:1 (the N-th in the JVM's scope)");
    }

    /** The keys of {@link NodeOptions}. */
    private static NodeOptions node(Map<String, String> m) throws OptionException {
        NodeOptions d = NodeOptions.defaults();
        int[] localRank = d.localRank();
        if (m.containsKey("local-rank")) {
            String v = m.get("local-rank");
            int slash = v.indexOf('/');
            localRank = slash < 0 ? null : new int[] {PolicyWords.digits(v.substring(0, slash).strip()), PolicyWords.digits(v.substring(slash + 1).strip())};
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
                if (rankSplitAt == null || rankSplitAt.isDevice()) throw bad("rank-split-at", v, "balanced, " + RANK_SPLIT_AT);
            }
        }
        NodeOptions.Claims claims = d.claims();
        if (m.containsKey("claims")) {
            String v = m.get("claims");
            claims = switch (v.toLowerCase(Locale.ROOT)) {
                case "node" -> NodeOptions.Claims.NODE;
                case "observe" -> NodeOptions.Claims.OBSERVE;
                case "off" -> NodeOptions.Claims.OFF;
                default -> throw bad("claims", v, "node, observe, off");
            };
        }
        String claimsDir = d.claimsDir();
        if (m.containsKey("claims-dir")) {
            claimsDir = m.get("claims-dir");
            if (claimsDir.isBlank() || !Path.of(claimsDir).isAbsolute()) throw bad("claims-dir", claimsDir, "an absolute directory path");
        }
        long refresh = m.containsKey("claims-refresh") ? RebalanceOptions.duration("claims-refresh", m.get("claims-refresh")) : d.claimsRefreshMillis();
        boolean respectQuota = m.containsKey("respect-quota") ? bool("respect-quota", m.get("respect-quota")) : d.respectQuota();
        long neighbours = m.containsKey("neighbours") ? RebalanceOptions.duration("neighbours", m.get("neighbours")) : d.neighboursMillis();
        return new NodeOptions(localRank, rankSplitAt, claims, claimsDir, respectQuota, refresh, neighbours);
    }

    /** {@code split-at}, {@code split}, {@code color} and {@code kind} over the defaults: the words of {@link PolicyWords}. */
    private static PlacementSpec policy(Map<String, String> m, PlacementSpec d) throws OptionException {
        String key = null;
        try {
            PlacementSpec p = d;
            key = "split-at";
            if (m.containsKey(key)) p = PlacementSpec.splitAt(PolicyWords.splitAt(m.get(key))).color(p.color()).kindOf(p);
            key = "split";
            if (m.containsKey(key)) p = PlacementSpec.split(PolicyWords.split(m.get(key))).color(p.color()).kindOf(p);
            key = "color";
            if (m.containsKey(key)) {
                Color c = PolicyWords.color(m.get(key));
                p = c != null ? p.color(c) : p.ordinal(PolicyWords.ordinal(m.get(key)));
            }
            key = "kind";
            if (m.containsKey(key)) p = PolicyWords.kind(p, m.get(key));
            return p;
        } catch (IllegalArgumentException e) {
            throw bad(key, m.get(key), e.getMessage());
        }
    }

    private static boolean bool(String key, String v) throws OptionException {
        try {
            return PolicyWords.bool(v);
        } catch (IllegalArgumentException e) {
            throw bad(key, v, e.getMessage());
        }
    }

    private static OptionException bad(String key, String value, String allowed) {
        return new OptionException("bad value " + key + "=" + value + " (allowed: " + allowed + ")");
    }
}
