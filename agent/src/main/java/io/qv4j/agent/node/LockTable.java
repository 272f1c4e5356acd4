package io.qv4j.agent.node;

import io.qv4j.agent.bind.NativeAffinity;
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
 * Who holds a lock on a lock file, and who this process is: what {@link Claims} and
 * {@link OpenHftLocks} ask to tell whose lock is live. Closing any descriptor of a file drops the
 * process's POSIX locks on it, so a descriptor opened to find out is closed only once its file is
 * deleted.
 *
 * <p>Where the agent's JNI library is loaded, each file is asked on a descriptor of its own that
 * stays open while the file is there ({@link NativeAffinity#lockProbe}, {@code F_OFD_GETLK}:
 * about a microsecond, and it sees this process's own locks). Elsewhere the kernel's table of
 * file locks is read, {@code /proc/locks}: each read takes the node's file-lock semaphore for
 * writing and waits for an RCU grace period unless another came just before (5-16 ms on a 6.18
 * VM), and every process's file locking on the node waits with it (DESIGN.md §7).
 */
final class LockTable {

    private LockTable() {
    }

    /** {@link Look#holder}: nobody holds a lock on the file, or there is no plain file. */
    static final long NONE = 0;

    /** {@link Look#holder}: a lock is held by an owner without a pid (an open file description's lock). */
    static final long UNKNOWN = -1;

    /**
     * The descriptors asked so far, by path, with the file each is on: never closed while that file
     * is linked (a lock of this process on it would go with it). A path whose file was replaced
     * gets a new one (an open descriptor keeps its file alive, so a new file cannot reuse that inode
     * number), and the old one is closed once its file is deleted, as another JVM's OpenHFT files
     * are at each release; past {@value #MAX_PROBES} open, /proc/locks is read instead.
     */
    private static final Map<Path, Probe> PROBES = new HashMap<>();
    private static int opened;

    /** A descriptor asked about a path, and the file it is on ({@link #key}). */
    private record Probe(int fd, String key) {
    }
    static final int MAX_PROBES = 1024;

    /**
     * One look at whose locks are live, for several files: asked file by file where the JNI library
     * is loaded, else from one read of /proc/locks, made at the first file that exists.
     */
    static final class Look {
        private final boolean ask;
        private Map<String, Long> table; // read on first need, where a file cannot be asked

        Look() {
            this(true);
        }

        /** {@code ask} false: from /proc/locks only (tests compare the two ways). */
        Look(boolean ask) {
            this.ask = ask;
        }

        /**
         * The pid holding a lock on the plain file at {@code f} (this process's own too),
         * {@link #UNKNOWN} for an owner without one, or {@link #NONE}: nobody, or no plain file.
         */
        long holder(Path f) {
            String key = key(f);
            if (key == null) return NONE;
            Integer pid = ask ? probe(f, key) : null;
            if (pid != null) return pid;
            if (table == null) table = liveLocks();
            Long holder = table.get(key);
            return holder == null ? NONE : holder;
        }
    }

    /** The holder of the lock on {@code f} (whose key is {@code key}) by its probe, or null where it cannot be asked. */
    private static Integer probe(Path f, String key) {
        if (!NativeAffinity.isLoaded()) return null;
        Probe p;
        synchronized (PROBES) {
            p = PROBES.get(f);
            if (p == null || !key.equals(p.key())) {
                if (opened >= MAX_PROBES) return null;
                long[] devIno = new long[2];
                int got = NativeAffinity.lockProbe(f, devIno);
                if (got == -2 || got == -40 || got == -22) return (int) NONE; // gone, a link or no plain file since the stat: as key() would say now
                if (got < 0) return null; // not readable by this user, no descriptor left: /proc/locks can still say
                opened++;
                if (p != null && NativeAffinity.retireLockProbe(p.fd())) opened--; // else kept: its file is linked elsewhere
                p = new Probe(got, key(devIno[0], devIno[1])); // the file there now, if replaced meanwhile
                PROBES.put(f, p);
            }
        }
        return NativeAffinity.lockHolder(p.fd());
    }

    /**
     * Reads /proc/locks once on a thread of its own, just before the first pool is planned, where
     * the JNI library is not loaded: a read waits in the kernel for an RCU grace period unless
     * another came just before, 10 to 45 ms for a process's first on a 6.18 VM.
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
            return key(dev, ino);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The key of the file with {@code st_dev} {@code dev} and {@code st_ino} {@code ino}. */
    static String key(long dev, long ino) {
        long major = ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL);
        long minor = (dev & 0xff) | ((dev >>> 12) & ~0xffL);
        return hex2(major) + ":" + hex2(minor) + ":" + Long.toUnsignedString(ino);
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
