package io.qv4j.agent.cli.shared;

import io.qv4j.agent.config.PolicyWords;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Strict {@code --name value} parsing for one command: every option must be known, given once,
 * and have a value unless it is a flag. Commands that take operands (such as {@code partition
 * WEIGHT...}) may allow positional arguments: words that do not start with {@code --}, kept in
 * order. Options named repeatable may be given any number of times ({@link #all}). Anything else
 * is a {@link UsageException}.
 */
public final class Args {

    private final String command;
    private final Map<String, String> values = new LinkedHashMap<>();
    private final List<String> positional = new java.util.ArrayList<>();
    private final Map<String, List<String>> repeated = new LinkedHashMap<>();

    private Args(String command) {
        this.command = command;
    }

    public static Args parse(String command, List<String> args, Set<String> options, Set<String> flags) {
        return parse(command, args, options, flags, false);
    }

    /** @param positional whether words not starting with {@code --} are operands rather than errors */
    public static Args parse(String command, List<String> args, Set<String> options, Set<String> flags, boolean positional) {
        return parse(command, args, options, flags, positional, Set.of());
    }

    /** @param repeatable options (among {@code options}) that may be given more than once */
    public static Args parse(String command, List<String> args, Set<String> options, Set<String> flags, boolean positional, Set<String> repeatable) {
        Args a = new Args(command);
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (positional && !arg.startsWith("--")) {
                a.positional.add(arg);
                continue;
            }
            if (flags.contains(name) && value == null) {
                value = "true";
            } else if (options.contains(name)) {
                if (value == null) {
                    if (i + 1 >= args.size()) throw new UsageException(command + ": " + name + " needs a value");
                    value = args.get(++i);
                }
            } else {
                throw new UsageException(command + ": unknown argument '" + arg + "' (allowed: "
                        + String.join(", ", options) + (flags.isEmpty() ? "" : ", " + String.join(", ", flags)) + ")");
            }
            if (repeatable.contains(name)) {
                a.repeated.computeIfAbsent(name, k -> new java.util.ArrayList<>()).add(value);
                a.values.put(name, value);
            } else if (a.values.put(name, value) != null) {
                throw new UsageException(command + ": " + name + " given twice");
            }
        }
        return a;
    }

    /** The operands, in order (empty unless the command allows them). */
    public List<String> positional() {
        return List.copyOf(positional);
    }

    /** Every value of a repeatable option, in order. */
    public List<String> all(String name) {
        return List.copyOf(repeated.getOrDefault(name, List.of()));
    }

    public String get(String name) {
        return values.get(name);
    }

    public String get(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    public boolean has(String name) {
        return values.containsKey(name);
    }

    /** The value, which must be one of {@code allowed}. */
    public String choice(String name, String fallback, String... allowed) {
        String v = get(name, fallback);
        for (String ok : allowed) if (ok.equals(v)) return v;
        throw new UsageException(command + ": " + name + " '" + v + "' is not one of " + String.join(", ", allowed));
    }

    /** At most one of the named options; returns the one given or null. */
    public String oneOf(String... names) {
        String found = null;
        for (String n : names) {
            if (has(n)) {
                if (found != null) throw new UsageException(command + ": give " + found + " or " + n + ", not both");
                found = n;
            }
        }
        return found;
    }

    public int positiveInt(String name) {
        String v = get(name);
        if (v == null) throw new UsageException(command + ": " + name + " is required");
        int n = PolicyWords.digits(v.strip());
        if (n <= 0) throw new UsageException(command + ": " + name + " '" + v + "' is not a positive integer");
        return n;
    }
}
