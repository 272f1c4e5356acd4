package io.qv4j.agent.config;

import io.qv4j.api.PlacementSpec;
import io.qv4j.api.Color;
import io.qv4j.api.Kind;
import io.qv4j.api.Memory;
import io.qv4j.topology.CpuKind;
import io.qv4j.topology.HwType;
import io.qv4j.topology.Topology;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The one grammar of policy words, shared by the agent options, the rules, and the CLI's
 * {@code plan}: {@code split-at} takes every object type (GPU and NIC pieces are the PUs near each
 * device), {@code split} a number of pieces, {@code color} auto, packed, spread or a piece number.
 * {@code kind} auto, performance, efficiency, any or an efficiency rank.
 * {@code undefined} is not a policy (it places no task): the API keeps it for groups. Each parser
 * throws {@link IllegalArgumentException} whose message is what is allowed; callers name the key.
 */
public final class PolicyWords {

    public static final String SPLIT_AT = allTypes();
    public static final String SPLIT = "a number of pieces, 1 to 65536";
    public static final String COLOR = "auto, packed, spread, or a piece number 0, 1, ...";
    public static final String KIND = "auto, performance, efficiency, any, or a CPU kind's efficiency rank 0, 1, ...";
    public static final String BOOLEAN = "true, false, on, off";
    public static final String MEMORY = "local (the kernel's first touch), interleave (over the pool's nodes), bind (each worker's own nodes)";

    private PolicyWords() {
    }

    public static HwType splitAt(String v) {
        try {
            return HwType.parse(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(SPLIT_AT);
        }
    }

    public static int split(String v) {
        return number(v, 1, 65536, SPLIT);
    }

    /** A color word; null for a piece number (read it with {@link #ordinal}). */
    public static Color color(String v) {
        switch (v.strip().toLowerCase(Locale.ROOT)) {
            case "auto":
                return Color.AUTO;
            case "packed":
                return Color.PACKED;
            case "spread":
                return Color.SPREAD;
            default:
                ordinal(v);
                return null;
        }
    }

    /** A piece number given as a color. */
    public static int ordinal(String v) {
        return number(v, 0, Integer.MAX_VALUE, COLOR);
    }

    /** A kind word; null for an efficiency rank (read it with {@link #efficiency}). */
    public static Kind kind(String v) {
        switch (v.strip().toLowerCase(Locale.ROOT)) {
            case "auto":
                return Kind.AUTO;
            case "performance":
                return Kind.PERFORMANCE;
            case "efficiency":
                return Kind.EFFICIENCY;
            case "any":
                return Kind.ANY;
            default:
                efficiency(v);
                return null;
        }
    }

    /** A memory policy word. */
    public static Memory memory(String v) {
        switch (v.strip().toLowerCase(Locale.ROOT)) {
            case "local":
                return Memory.LOCAL;
            case "interleave":
                return Memory.INTERLEAVE;
            case "bind":
                return Memory.BIND;
            default:
                throw new IllegalArgumentException(MEMORY);
        }
    }

    /** An efficiency rank given as a kind. */
    public static int efficiency(String v) {
        return number(v, 0, 255, KIND);
    }

    /** A number from {@code min} to {@code max}; else {@code allowed} is the message. */
    private static int number(String v, int min, int max, String allowed) {
        int n = digits(v.strip());
        if (n < min || n > max) throw new IllegalArgumentException(allowed);
        return n;
    }

    /**
     * {@code v} as 1 to 9 ASCII digits; -1 when it is not (Integer.parseInt would also take a sign
     * and other scripts' digits, {@code ٣} as 3). The one number reader of options, rules and the CLI.
     */
    public static int digits(String v) {
        if (v.isEmpty() || v.length() > 9) return -1;
        int n = 0;
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < '0' || c > '9') return -1;
            n = n * 10 + (c - '0');
        }
        return n;
    }

    /**
     * A decimal number written as ASCII digits with at most one point ({@code 0.2}, {@code 1.5},
     * {@code 500}), at most 18 characters; NaN for anything else: no sign, exponent, {@code NaN},
     * {@code Infinity}, hexadecimal or other scripts' digits, which {@code Double.parseDouble} takes.
     */
    public static double decimal(String v) {
        if (v.isEmpty() || v.length() > 18) return Double.NaN;
        int digits = 0, points = 0;
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == '.') points++;
            else if (c >= '0' && c <= '9') digits++;
            else return Double.NaN;
        }
        if (points > 1 || digits == 0 || v.charAt(0) == '.' || v.charAt(v.length() - 1) == '.') return Double.NaN;
        return Double.parseDouble(v);
    }

    /** {@code p} with the kind word {@code v}. */
    public static PlacementSpec kind(PlacementSpec p, String v) {
        Kind k = kind(v);
        return k != null ? p.kind(k) : p.kind(efficiency(v));
    }

    public static boolean bool(String v) {
        switch (v.strip().toLowerCase(Locale.ROOT)) {
            case "true", "on":
                return true;
            case "false", "off":
                return false;
            default:
                throw new IllegalArgumentException(BOOLEAN);
        }
    }

    private static String allTypes() {
        StringBuilder sb = new StringBuilder();
        for (HwType t : HwType.values()) sb.append(sb.length() == 0 ? "" : ", ").append(t.shortName());
        return sb.toString();
    }

    /**
     * {@code kind=N} where this machine has no CPU kind of efficiency rank N, as the option error
     * it is, naming the kinds it has (a PU of no known kind counts as 0); null where it has that
     * kind or the option is a word ({@code auto}, {@code performance}...).
     */
    public static String missingKind(PlacementSpec policy, Topology t) {
        int e = policy.efficiency();
        if (e < 0) return null;
        List<String> has = new ArrayList<>();
        for (CpuKind k : t.cpuKinds()) {
            if (k.efficiency() == e) return null;
            has.add(k.efficiency() + " (pus " + k.cpus() + ")");
        }
        if (has.isEmpty()) {
            if (e == 0) return null;
            has.add("0 (pus " + t.online() + ")");
        }
        return "bad value kind=" + e + " (this machine has CPU kinds: " + String.join(", ", has) + ")";
    }
}
