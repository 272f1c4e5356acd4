package io.qv4j.agent.load;

import java.io.FileInputStream;
import java.io.IOException;

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
}
