package io.qv4j.topology.linux;

import io.qv4j.topology.CpuSet;
import io.qv4j.topology.TopologyException;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A file-system root holding {@code sys/} and {@code proc/}: {@code /} or a dump of a machine.
 * Reads small text files, treating "missing" as an answer (sysfs varies by kernel) and any other
 * I/O error as a {@link TopologyException} naming the file. Symbolic links are resolved against
 * this root, never outside it: dumps hold links that are relative or absolute to the original root.
 * Only regular files are opened (a FIFO would block the open, {@code /dev/zero} never ends), and
 * only up to {@link #MAX_FILE} bytes: anything else is a {@link TopologyException} naming the file.
 */
final class FsRoot {

    private static final int MAX_LINKS = 40;
    /**
     * The most bytes a file may hold. Sysfs attributes hold at most a page, but procfs's
     * {@code mounts} grows with the mounts (a container host has thousands, ~100 bytes each);
     * 1 MiB keeps every real file and bounds the memory and time a dump can make a read take.
     */
    static final int MAX_FILE = 1 << 20;

    private final Path root;
    /**
     * Root {@code /}: every link leads inside it and the kernel's sysfs holds no planted ones, so
     * the kernel may follow them, with java.io (faster in a fresh JVM: the agent's start-up).
     */
    private final boolean live;
    private final Map<Path, Path> resolved = new HashMap<>();
    /** The last file read (not thread-safe: a reader is used by one thread). */
    private byte[] buf = new byte[4096];

    FsRoot(Path root) {
        this.root = root.toAbsolutePath().normalize();
        this.live = this.root.getNameCount() == 0;
    }

    /** {@code rel} under this root, e.g. {@code sys/devices/system/cpu}; an absolute path is taken as root-relative. */
    Path path(String rel) {
        int i = 0;
        while (i < rel.length() && rel.charAt(i) == '/') i++;
        return root.resolve(rel.substring(i));
    }

    /**
     * The file's content without surrounding blanks and control characters (a dump's file may end
     * in more than the kernel's newline, even a NUL); null when it (or its directory) does not exist.
     */
    String read(Path file) {
        int n = readBytes(file, MAX_FILE + 1);
        if (n < 0) return null;
        if (n > MAX_FILE) throw new TopologyException(file + ": larger than " + MAX_FILE + " bytes");
        int from = 0, to = n;
        while (from < to && (buf[from] & 0xff) <= ' ') from++;
        while (to > from && (buf[to - 1] & 0xff) <= ' ') to--;
        // ISO-8859-1 maps every byte: a stray byte in a dump must not fail the whole read
        return new String(buf, from, to - from, StandardCharsets.ISO_8859_1);
    }

    /** The first {@code max} bytes of a file (for files that are long or slow to produce); null when missing. */
    String readHead(Path file, int max) {
        int n = readBytes(file, max);
        return n < 0 ? null : new String(buf, 0, n, StandardCharsets.ISO_8859_1);
    }

    /**
     * Reads up to {@code max} bytes of a file into {@link #buf}, growing it as needed; the count, or
     * -1 when the file is missing. One buffer for every file: a discovery reads hundreds (thousands
     * on a large machine), and a fresh buffer each (what readAllBytes allocates) is memory the
     * start-up must fault in. java.io rather than Files: in a fresh JVM it is about ten times faster.
     */
    private int readBytes(Path file, int max) {
        Path real = regularFile(file);
        if (real == null) return -1;
        try (FileInputStream in = new FileInputStream(real.toString())) {
            int n = 0;
            while (n < max) {
                if (n == buf.length) buf = Arrays.copyOf(buf, (int) Math.min((long) buf.length * 2, max)); // n < max here
                int r = in.read(buf, n, Math.min(buf.length, max) - n);
                if (r < 0) break;
                n += r;
            }
            return n;
        } catch (FileNotFoundException e) {
            if (!new File(real.toString()).exists()) return -1; // removed since
            throw new TopologyException(file + ": cannot read: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new TopologyException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    /**
     * The regular file {@code file} names, links resolved within this root (one lstat when there
     * is none); null when missing, or when a link leads outside the root, loops or is missing.
     * Anything but a regular file (directory, FIFO, device, socket) is a {@link TopologyException}:
     * live sysfs and procfs never hold one where a file is read, so a dump that does is damaged.
     */
    private Path regularFile(Path file) {
        if (live) {
            File f = new File(file.toString());
            if (f.isFile()) return file;
            if (!f.exists()) return null;
            throw new TopologyException(file + ": not a regular file" + (f.isDirectory() ? " but a directory" : ""));
        }
        Path p = file.toAbsolutePath().normalize();
        for (int links = 0; links <= MAX_LINKS; links++) {
            Path parent = p.getParent() == null ? null : resolve(p.getParent(), 0);
            if (parent == null) return null;
            Path here = parent.resolve(p.getFileName());
            try {
                BasicFileAttributes a = Files.readAttributes(here, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (a.isRegularFile()) return here;
                if (!a.isSymbolicLink()) throw new TopologyException(file + ": not a regular file" + (a.isDirectory() ? " but a directory" : ""));
                Path target = Files.readSymbolicLink(here);
                p = (target.isAbsolute() ? path(target.toString()) : parent.resolve(target)).normalize();
            } catch (NoSuchFileException e) {
                return null;
            } catch (IOException e) {
                if (!new File(here.toString()).exists()) return null; // also when a parent is a file
                throw new TopologyException(file + ": cannot read: " + e.getMessage(), e);
            }
        }
        return null;
    }

    /** A decimal integer file; {@code absent} when the file is missing. */
    int readInt(Path file, int absent) {
        String s = read(file);
        if (s == null) return absent;
        long n = decimal(s, 0, s.length());
        if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) throw new TopologyException(file + ": not a number: '" + shown(s) + "'");
        return (int) n;
    }

    /**
     * {@code s[from, to)} as an optional minus and 1 to 18 ASCII digits (Long.parseLong would also
     * take other scripts' digits and a plus); {@link Long#MIN_VALUE} when it is not one.
     */
    static long decimal(String s, int from, int to) {
        boolean minus = from < to && s.charAt(from) == '-';
        if (minus) from++;
        if (from == to || to - from > 18) return Long.MIN_VALUE;
        long n = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') return Long.MIN_VALUE;
            n = n * 10 + (c - '0');
        }
        return minus ? -n : n;
    }

    /** {@code s} cut for a message: a file may hold up to {@link #MAX_FILE} bytes. */
    static String shown(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "... (" + s.length() + " characters)";
    }

    /** A cpulist file ({@code 0-3,8}); null when missing. */
    CpuSet readList(Path file) {
        String s = read(file);
        return s == null ? null : parseList(file, s);
    }

    /** A hex mask file ({@code 00000000,000000ff}); null when missing. */
    CpuSet readMask(Path file) {
        String s = read(file);
        if (s == null) return null;
        try {
            return CpuSet.parseMask(s);
        } catch (IllegalArgumentException e) {
            throw new TopologyException(file + ": " + e.getMessage(), e);
        }
    }

    /** {@code text}, read from {@code file}, as a cpulist; a bad one is a {@link TopologyException} naming the file. */
    static CpuSet parseList(Path file, String text) {
        try {
            return CpuSet.parse(text);
        } catch (IllegalArgumentException e) {
            throw new TopologyException(file + ": " + e.getMessage(), e);
        }
    }

    /** The names in a directory, unsorted; empty when it does not exist (links resolved within this root, as for files). */
    List<String> list(Path dir) {
        Path real = live ? dir : resolve(dir);
        if (real == null) return List.of();
        File d = new File(real.toString());
        String[] names = d.list();
        if (names == null) {
            if (d.isDirectory()) throw new TopologyException(dir + ": cannot list");
            return List.of();
        }
        return Arrays.asList(names);
    }

    boolean isDirectory(Path dir) {
        Path real = live ? dir : resolve(dir);
        return real != null && new File(real.toString()).isDirectory();
    }

    /**
     * {@code p} (under this root) with every symbolic link on the way replaced by its target, read
     * relative to this root; null when a link leads outside the root, loops, or is missing.
     * Resolved prefixes are remembered, so resolving many siblings costs about one lstat each.
     */
    Path resolve(Path p) {
        return resolve(p.toAbsolutePath().normalize(), 0);
    }

    private Path resolve(Path p, int links) {
        if (p.equals(root)) return root;
        if (!p.startsWith(root) || links > MAX_LINKS) return null;
        Path known = resolved.get(p);
        if (known != null) return known;
        Path parent = resolve(p.getParent(), links);
        if (parent == null) return null;
        Path here = parent.resolve(p.getFileName());
        Path result = here;
        if (Files.isSymbolicLink(here)) {
            Path target;
            try {
                target = Files.readSymbolicLink(here);
            } catch (IOException e) {
                return null;
            }
            Path next = target.isAbsolute() ? path(target.toString()) : parent.resolve(target);
            result = resolve(next.normalize(), links + 1);
            if (result == null) return null;
        }
        resolved.put(p, result);
        return result;
    }

    @Override
    public String toString() {
        return root.toString();
    }
}
