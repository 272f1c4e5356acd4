package io.qv4j.agent.config;

import io.qv4j.api.Color;
import io.qv4j.api.Kind;
import io.qv4j.topology.HwType;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The rules of the config file ({@code config=FILE}, the same properties file as the options):
 * <pre>
 * rule.io.match.thread   = io-*
 * rule.io.split-at       = core
 * rule.io.color          = packed
 * rule.compute.match.creator = com.acme.Solver#start*
 * rule.compute.split-at  = numa
 * rule.compute.weight    = 3
 * rule.pipe.match.thread = pipe-*
 * rule.pipe.split-at     = pu
 * rule.pipe.tasks        = 4
 * </pre>
 * A rule whose {@code match.thread} (and/or {@code match.class}, then the thread's class) names
 * plain threads makes them a group: the trailing number of a thread's name gives its slot
 * ({@code pipe-1} → slot 0), {@code tasks} its size (else one thread per piece of the split).
 * Rules are tried in the order their names first appear in the file; the first whose match keys
 * all match wins. Errors name {@code file:line}.
 */
public final class Rules {

    public static final List<String> MATCH_KEYS = List.of("match.thread", "match.class", "match.creator");
    public static final List<String> POLICY_KEYS = List.of("split-at", "split", "color", "kind", "exclusive", "memory", "common-pool", "weight", "tasks");

    private final List<Rule> rules;

    private Rules(List<Rule> rules) {
        this.rules = List.copyOf(rules);
    }

    public static Rules none() {
        return new Rules(List.of());
    }

    public List<Rule> list() {
        return rules;
    }

    public boolean isEmpty() {
        return rules.isEmpty();
    }

    /** True for a key of the config file that belongs to the rules ({@code rule.} or {@code qv.rule.}). */
    public static boolean isRuleKey(String key) {
        return key.startsWith("rule.") || key.startsWith("qv.rule.");
    }

    /** The first rule matching a pool, or null. */
    public Rule match(String thread, String cls, String creatorClassMethod, boolean common) {
        for (Rule r : rules) if (r.matches(thread, cls, creatorClassMethod, common)) return r;
        return null;
    }

    /** The rules among a config file's keys ({@code rule.NAME.KEY}), with their lines for messages. */
    static Rules parse(String file, Properties p, Map<String, Integer> lines) throws OptionException {
        // rule name → (key → value), names in order of first appearance
        Map<String, Map<String, String>> byName = new LinkedHashMap<>();
        List<String> keys = new ArrayList<>(lines.keySet());
        for (String k : keys) {
            if (!isRuleKey(k) || !p.containsKey(k)) continue;
            String rest = k.startsWith("qv.") ? k.substring(8) : k.substring(5);
            int dot = rest.indexOf('.');
            String where = file + ":" + lines.get(k);
            if (dot <= 0) throw new OptionException("config=" + where + ": bad key '" + k + "' (a rule key is rule.NAME.KEY, KEY one of "
                    + String.join(", ", MATCH_KEYS) + ", " + String.join(", ", POLICY_KEYS) + ")");
            String name = rest.substring(0, dot);
            String key = rest.substring(dot + 1);
            if (!MATCH_KEYS.contains(key) && !POLICY_KEYS.contains(key)) {
                throw new OptionException("config=" + where + ": rule " + name + ": unknown key '" + key + "' (keys: "
                        + String.join(", ", MATCH_KEYS) + ", " + String.join(", ", POLICY_KEYS) + ")");
            }
            byName.computeIfAbsent(name, n -> new LinkedHashMap<>()).put(key, p.getProperty(k).strip());
        }
        List<Rule> out = new ArrayList<>();
        for (Map.Entry<String, Map<String, String>> e : byName.entrySet()) {
            out.add(rule(file, lines, e.getKey(), e.getValue()));
        }
        return new Rules(out);
    }

    private static Rule rule(String file, Map<String, Integer> lines, String name, Map<String, String> m) throws OptionException {
        Pattern thread = null;
        Pattern cls = null;
        Pattern creator = null;
        HwType splitAt = null;
        int split = 0;
        Color color = null;
        int ordinal = -1;
        Kind kind = null;
        int efficiency = -1;
        boolean common = false;
        Boolean exclusive = null;
        io.qv4j.api.Memory memory = null;
        double weight = Double.NaN;
        int tasks = 0;
        int first = Integer.MAX_VALUE;
        for (Map.Entry<String, String> e : m.entrySet()) {
            String key = e.getKey();
            String v = e.getValue();
            int line = line(lines, name, key);
            first = Math.min(first, line);
            String where = "config=" + file + ":" + line + ": rule " + name + ": ";
            switch (key) {
                case "match.thread" -> thread = glob(where, key, v, "a thread-name glob such as io-*");
                case "match.class" -> cls = glob(where, key, v, "a pool class glob such as java.util.concurrent.ForkJoinPool or com.acme.*Pool");
                case "match.creator" -> creator = glob(where, key, v.indexOf('#') < 0 ? v + "#*" : v, "com.acme.Cls#method, globs allowed");
                case "split-at" -> splitAt = word(where, key, v, PolicyWords::splitAt);
                case "split" -> split = word(where, key, v, PolicyWords::split);
                case "color" -> {
                    color = word(where, key, v, PolicyWords::color);
                    if (color == null) ordinal = PolicyWords.ordinal(v);
                }
                case "kind" -> {
                    kind = word(where, key, v, PolicyWords::kind);
                    if (kind == null) efficiency = PolicyWords.efficiency(v);
                }
                case "common-pool" -> common = word(where, key, v, PolicyWords::bool);
                case "exclusive" -> exclusive = word(where, key, v, PolicyWords::bool);
                case "memory" -> memory = word(where, key, v, PolicyWords::memory);
                case "weight" -> {
                    weight = PolicyWords.decimal(v);
                    if (!(weight > 0)) throw bad(where, key, v, "a positive number, the rule's share of the JVM's PUs");
                }
                case "tasks" -> {
                    tasks = PolicyWords.digits(v);
                    if (tasks < 1 || tasks > 4096) throw bad(where, key, v, "1 to 4096, the number of threads in a group of plain threads the rule names");
                }
                default -> throw new IllegalStateException(key);
            }
        }
        String where = file + ":" + first;
        if (thread == null && cls == null && creator == null && !common) {
            throw new OptionException("config=" + where + ": rule " + name + " matches nothing (give match.thread, match.class, match.creator or common-pool=on)");
        }
        return new Rule(name, where, thread, cls, creator, common, new Policy(splitAt, split, color, ordinal, kind, efficiency, exclusive, memory, "rule " + name + " (" + where + ")"), weight, tasks);
    }

    private static int line(Map<String, Integer> lines, String name, String key) {
        Integer l = lines.get("rule." + name + "." + key);
        if (l == null) l = lines.get("qv.rule." + name + "." + key);
        return l == null ? 0 : l;
    }

    private static <T> T word(String where, String key, String v, java.util.function.Function<String, T> parse) throws OptionException {
        try {
            return parse.apply(v);
        } catch (IllegalArgumentException e) {
            throw bad(where, key, v, e.getMessage());
        }
    }

    private static Pattern glob(String where, String key, String v, String allowed) throws OptionException {
        if (v.isBlank()) throw bad(where, key, v, allowed);
        return Rule.glob(v);
    }

    private static OptionException bad(String where, String key, String value, String allowed) {
        return new OptionException(where + "bad value " + key + "=" + value + " (allowed: " + allowed + ")");
    }
}
