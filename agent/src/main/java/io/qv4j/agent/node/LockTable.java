package io.qv4j.agent.node;

import io.qv4j.agent.boot.AgentThread;
import io.qv4j.agent.io.UserFiles;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;

/**
 * The kernel's table of file locks ({@code /proc/locks}) and the keys it names files by, plus who
 * this process is: what {@link Claims} and {@link OpenHftLocks} read to tell whose lock is live
 * without opening the file (closing any descriptor of a file drops the process's locks on it).
 */
final class LockTable {

    private LockTable() {
    }

    /**
     * Reads /proc/locks once on a thread of its own, just before the first pool is planned. A read
     * waits in the kernel for an RCU grace period (it takes the file-lock semaphore for writing)
     * unless another came just before: 10 to 45 ms for a process's first on a 6.18 VM, 5-16 ms
     * for one 50 ms or more after the last, microseconds back to back, from any thread.
     */
    static void readAhead() {
        new AgentThread("qv-locks", new Runnable() { // no lambda: cold invokedynamic costs milliseconds
            @Override
            public void run() {
                UserFiles.proc("/proc/locks");
            }
        }).start();
    }

    /** This process's pid from /proc/self (ProcessHandle would start the JDK's process-reaper pool). */
    static long ownPid() {
        try {
            return Long.parseLong(Files.readSymbolicLink(Path.of("/proc/self")).getFileName().toString());
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * {@code "MAJ:MIN:INODE"} as /proc/locks writes it ({@code %02x:%02x:%lu}), for a plain file
     * (never following a link); null otherwise. From the basic attributes' file key
     * ({@code (dev=fe00,ino=2148822)} on Linux), which costs nothing extra to load in a fresh JVM.
     */
    static String key(Path f) {
        try {
            BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isRegularFile()) return null;
            long dev, ino;
            String k = String.valueOf(a.fileKey());
            int d = k.indexOf("dev="), i = k.indexOf(",ino=");
            if (d >= 0 && i > d && k.endsWith(")")) {
                dev = Long.parseUnsignedLong(k.substring(d + 4, i), 16);
                ino = Long.parseUnsignedLong(k.substring(i + 5, k.length() - 1));
            } else {
                dev = ((Number) Files.getAttribute(f, "unix:dev", LinkOption.NOFOLLOW_LINKS)).longValue();
                ino = ((Number) Files.getAttribute(f, "unix:ino", LinkOption.NOFOLLOW_LINKS)).longValue();
            }
            long major = ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL);
            long minor = (dev & 0xff) | ((dev >>> 12) & ~0xffL);
            return hex2(major) + ":" + hex2(minor) + ":" + Long.toUnsignedString(ino);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static String hex2(long v) {
        String h = Long.toHexString(v);
        return h.length() < 2 ? "0" + h : h;
    }

    /** Held locks in /proc/locks: file key → holder pid (waiters, {@code ->}, left out). Parsed by hand: no regex, no charset decoder. */
    static Map<String, Long> liveLocks() {
        Map<String, Long> out = new HashMap<>();
        byte[] buf = UserFiles.proc("/proc/locks");
        if (buf == null) return out;
        int n = buf.length;
        String[] f = new String[6];
        int i = 0;
        while (i < n) {
            int end = i;
            while (end < n && buf[end] != '\n') end++;
            int k = 0;
            for (int j = i; j < end && k < 6; ) {
                while (j < end && (buf[j] == ' ' || buf[j] == '\t')) j++;
                int st = j;
                while (j < end && buf[j] != ' ' && buf[j] != '\t') j++;
                if (j > st) f[k++] = new String(buf, st, j - st, StandardCharsets.ISO_8859_1);
            }
            i = end + 1;
            if (k < 6 || f[1].equals("->")) continue;
            long holder;
            try {
                holder = Long.parseLong(f[4]);
            } catch (NumberFormatException e) {
                holder = -1;
            }
            out.putIfAbsent(f[5], holder);
        }
        return out;
    }
}
