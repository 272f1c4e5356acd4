package io.qv4j.agent.cli.plan;

import io.qv4j.agent.cli.shared.Args;
import io.qv4j.agent.cli.shared.UsageException;
import io.qv4j.api.Partition;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code partition --parts P [--method exact|orb] [--format text|json] (WEIGHT... | --file F)}:
 * {@link Partition} for humans and scripts. Weights are non-negative integers (a {@code long}
 * each); the file holds one per line, blank lines and {@code #} comments ignored. JSON is one
 * line, {@code {"parts":[{"from":0,"to":4,"load":5},…],"max":6}}, {@code to} exclusive; part
 * {@code i} is task {@code i}'s.
 */
public final class PartitionCommand {

    private PartitionCommand() {
    }

    public static void run(List<String> argv, PrintStream out) {
        Args args = Args.parse("partition", argv, Set.of("--parts", "--method", "--format", "--file"), Set.of(), true);
        String format = args.choice("--format", "text", "text", "json");
        String method = args.choice("--method", "exact", "exact", "orb");
        int parts = args.positiveInt("--parts");
        List<String> words = args.positional();
        if (args.has("--file") && !words.isEmpty()) {
            throw new UsageException("partition: give weights or --file " + args.get("--file") + ", not both");
        }
        long[] weights = args.has("--file") ? fromFile(args.get("--file")) : fromWords(words);
        Partition.Ranges r;
        try {
            r = method.equals("exact") ? Partition.exact(weights, parts) : Partition.orb(weights, parts);
        } catch (IllegalArgumentException e) {
            throw new UsageException("partition: " + e.getMessage());
        }
        out.print(format.equals("json") ? json(r) : text(r, method));
    }

    private static long[] fromWords(List<String> words) {
        if (words.isEmpty()) throw new UsageException("partition: no weights: give WEIGHT... or --file F");
        long[] w = new long[words.size()];
        for (int i = 0; i < w.length; i++) w[i] = weight(words.get(i), "weight [" + i + "]");
        return w;
    }

    private static long[] fromFile(String file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(Path.of(file));
        } catch (NoSuchFileException e) {
            throw new UsageException("partition: " + file + ": no such file");
        } catch (AccessDeniedException e) {
            throw new UsageException("partition: " + file + ": permission denied");
        } catch (IOException | java.io.UncheckedIOException | java.nio.file.InvalidPathException e) {
            String why = Files.isDirectory(Path.of(file)) ? "is a directory" : "cannot be read (" + e.getMessage() + ")";
            throw new UsageException("partition: " + file + ": " + why);
        }
        List<Long> w = new ArrayList<>();
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n);
            int hash = line.indexOf('#');
            if (hash >= 0) line = line.substring(0, hash);
            if (line.isBlank()) continue;
            w.add(weight(line, file + ":" + (n + 1) + ": weight [" + w.size() + "]"));
        }
        if (w.isEmpty()) throw new UsageException("partition: no weights in " + file);
        return w.stream().mapToLong(Long::longValue).toArray();
    }

    private static long weight(String word, String where) {
        String s = word.strip();
        long v;
        try {
            v = Long.parseLong(s);
        } catch (NumberFormatException e) {
            String why = s.matches("[+-]?\\d+") ? "is too large (at most " + Long.MAX_VALUE + ")"
                    : "is not a whole number (weights are non-negative integers: scale fractions)";
            throw new UsageException("partition: " + where + " '" + s + "' " + why);
        }
        if (v < 0) throw new UsageException("partition: " + where + " '" + s + "' is negative: weights must be >= 0");
        return v;
    }

    /** One line: {@code {"parts":[{"from":0,"to":4,"load":5},…],"max":6}}. */
    static String json(Partition.Ranges r) {
        StringBuilder sb = new StringBuilder("{\"parts\":[");
        for (int i = 0; i < r.count(); i++) {
            Partition.Range p = r.part(i);
            if (i > 0) sb.append(',');
            sb.append("{\"from\":").append(p.from()).append(",\"to\":").append(p.to()).append(",\"load\":").append(p.load()).append('}');
        }
        return sb.append("],\"max\":").append(r.max()).append("}\n").toString();
    }

    static String text(Partition.Ranges r, String method) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-6s %10s %10s %10s %20s%n", "part", "from", "to", "size", "load"));
        for (int i = 0; i < r.count(); i++) {
            Partition.Range p = r.part(i);
            sb.append(String.format(Locale.ROOT, "%-6d %10d %10d %10d %20d%n", i, p.from(), p.to(), p.size(), p.load()));
        }
        double average = (double) r.total() / r.count();
        sb.append(String.format(Locale.ROOT, "%s: max %d, total %d, average %.2f, max/average %s%n", method, r.max(), r.total(), average,
                average == 0 ? "-" : String.format(Locale.ROOT, "%.3f", r.max() / average)));
        return sb.toString();
    }
}
