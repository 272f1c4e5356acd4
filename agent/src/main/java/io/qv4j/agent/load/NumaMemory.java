package io.qv4j.agent.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a process's memory is, by NUMA node: the resident pages {@code /proc/PID/numa_maps} counts
 * on each node ({@code N0=123} per mapping, in pages of the mapping's {@code kernelpagesize_kB}).
 * Read as a stream, a mapping at a time, and at most {@link #MAX_LINES} of them: the file is made
 * by walking the process's page tables, and a large heap makes it long.
 */
public final class NumaMemory {

    /** At most this many mappings are read (the kernel's default {@code vm.max_map_count} is 65,530). */
    static final int MAX_LINES = 1 << 20;

    private NumaMemory() {
    }

    /** Bytes resident on each NUMA node by OS index; empty where the file cannot be read (no NUMA support, another user's process). */
    public static Map<Integer, Long> of(long pid) {
        return read(Path.of("/proc", Long.toString(pid), "numa_maps"));
    }

    static Map<Integer, Long> read(Path file) {
        Map<Integer, Long> bytes = new TreeMap<>();
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1)) {
            String line;
            for (int n = 0; n < MAX_LINES && (line = r.readLine()) != null; n++) add(line, bytes);
        } catch (IOException | UncheckedIOException | SecurityException unreadable) {
            return Map.of();
        }
        return bytes;
    }

    /** One mapping's {@code N<node>=<pages>} fields, added to {@code bytes}. */
    static void add(String line, Map<Integer, Long> bytes) {
        long pageKb = 4;
        int at = line.indexOf(" kernelpagesize_kB=");
        if (at >= 0) {
            long k = digits(line, at + " kernelpagesize_kB=".length());
            if (k > 0) pageKb = k;
        }
        for (int i = line.indexOf(" N"); i >= 0; i = line.indexOf(" N", i + 2)) {
            long node = digits(line, i + 2);
            int eq = i + 2 + Long.toString(Math.max(0, node)).length();
            if (node < 0 || node > 65_535 || eq >= line.length() || line.charAt(eq) != '=') continue;
            long pages = digits(line, eq + 1);
            if (pages > 0) bytes.merge((int) node, pages * pageKb * 1024, Long::sum);
        }
    }

    /** The decimal number of at most 15 digits at {@code from}; -1 when there is none. */
    private static long digits(String s, int from) {
        long v = 0;
        int i = from;
        while (i < s.length() && i - from < 15 && s.charAt(i) >= '0' && s.charAt(i) <= '9') v = v * 10 + (s.charAt(i++) - '0');
        return i == from ? -1 : v;
    }
}
