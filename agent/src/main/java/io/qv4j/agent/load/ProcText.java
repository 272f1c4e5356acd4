package io.qv4j.agent.load;

import java.io.FileInputStream;
import java.io.IOException;
import java.util.Arrays;

/**
 * Reads small {@code /proc} files into one reused buffer (a reader per thread): the watcher reads a
 * few hundred of them a second and must not allocate for each. {@code /proc/stat} grows with the
 * PUs (about 100 bytes each), so the buffer grows up to a bound; beyond it the rest is not read.
 */
final class ProcText {

    /** {@code /proc/stat} of 8,192 PUs is under 1 MiB. */
    static final int MAX = 4 << 20;

    byte[] buf = new byte[4096];
    int len;

    /** Reads {@code path}; false when it cannot be read (a thread that ended, no such file). */
    boolean read(String path) {
        len = 0;
        try (FileInputStream in = new FileInputStream(path)) {
            while (true) {
                if (len == buf.length) {
                    if (buf.length >= MAX) return true;
                    byte[] b = new byte[Math.min(MAX, buf.length * 2)];
                    System.arraycopy(buf, 0, b, 0, len);
                    buf = b;
                }
                int n = in.read(buf, len, buf.length - len);
                if (n < 0) return true;
                len += n;
            }
        } catch (IOException | SecurityException e) {
            len = 0;
            return false;
        }
    }

    /** The unsigned decimal number starting at {@code i} (blanks skipped); -1 when there is none. Sets {@link #next}. */
    long number(int i) {
        while (i < len && buf[i] == ' ') i++;
        long v = 0;
        int start = i;
        while (i < len && buf[i] >= '0' && buf[i] <= '9' && i - start < 19) v = v * 10 + (buf[i++] - '0');
        next = i;
        return i == start ? -1 : v;
    }

    /** Where the last {@link #number} stopped. */
    int next;

    /** The index after the next {@code c} from {@code i}, or {@code len}. */
    int after(int i, byte c) {
        while (i < len && buf[i] != c) i++;
        return Math.min(len, i + 1);
    }

    /**
     * The {@code cpuN} lines of a {@code /proc/stat} in the buffer: by N, its first eight fields
     * (user nice system idle iowait irq softirq steal, in ticks; 0 where a kernel has fewer), null
     * for an N without a line (an offline PU).
     */
    long[][] cpus() {
        long[][] rows = new long[64][];
        int max = -1;
        for (int i = 0; i < len; i = after(i, (byte) '\n')) {
            if (i + 3 >= len || buf[i] != 'c' || buf[i + 1] != 'p' || buf[i + 2] != 'u' || buf[i + 3] < '0' || buf[i + 3] > '9') continue;
            long n = number(i + 3);
            if (n < 0 || n >= 1 << 16) continue;
            int cpu = (int) n;
            if (cpu >= rows.length) rows = Arrays.copyOf(rows, Math.max(cpu + 1, rows.length * 2));
            long[] f = new long[8];
            int at = next;
            for (int k = 0; k < f.length; k++) {
                long v = number(at);
                if (v < 0) break;
                f[k] = v;
                at = next;
            }
            rows[cpu] = f;
            max = Math.max(max, cpu);
        }
        return Arrays.copyOf(rows, max + 1);
    }

    /**
     * {ticks (utime + stime), last PU, -1, -1} from a thread's or process's {@code stat} line in the
     * buffer, or null; the last two are {@link LoadMeter.Sample}'s run and wait times, for the caller.
     */
    long[] threadStat() {
        // the name, in parentheses, may hold blanks and parentheses: fields count from the last ')'
        int i = len;
        while (i > 0 && buf[i - 1] != ')') i--;
        if (i == 0) return null;
        long utime = -1, stime = -1, cpu = -1;
        for (int field = 3; field <= 39 && i < len; field++) {
            while (i < len && buf[i] == ' ') i++;
            if (field == 14 || field == 15 || field == 39) {
                long v = number(i);
                if (field == 14) utime = v;
                else if (field == 15) stime = v;
                else cpu = v;
            }
            while (i < len && buf[i] != ' ') i++;
        }
        if (utime < 0 || stime < 0 || cpu < 0) return null;
        return new long[] {utime + stime, cpu, -1, -1};
    }

    /** The number after the {@code :} of the line that starts with {@code key} ({@code sched}'s {@code key : value}); -1 when there is none. */
    long field(String key) {
        for (int i = 0; i < len; i = after(i, (byte) '\n')) {
            if (!startsWith(i, key)) continue;
            int colon = i + key.length();
            while (colon < len && buf[colon] != ':' && buf[colon] != '\n') colon++;
            return colon < len && buf[colon] == ':' ? number(colon + 1) : -1;
        }
        return -1;
    }

    private boolean startsWith(int i, String s) {
        if (i + s.length() > len) return false;
        for (int k = 0; k < s.length(); k++) if (buf[i + k] != s.charAt(k)) return false;
        return true;
    }
}
