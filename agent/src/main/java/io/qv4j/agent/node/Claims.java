package io.qv4j.agent.node;

import io.qv4j.agent.log.Log;
import io.qv4j.topology.CpuSet;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Node-wide claims (DESIGN.md §7): one OS file lock per claimed PU in a per-user directory,
 * {@code pu-N.lock}, held for the life of the JVM, so a killed JVM's claims vanish with it (the
 * files stay; a stale file without a lock claims nothing). No daemon.
 *
 * <p>Whose locks are live is read from {@code /proc/locks} (device and inode of each locked file,
 * and the holder's pid), matched against the lock files' inodes: nothing is opened to find out.
 * That matters because a POSIX lock is the process's, and closing <em>any</em> descriptor of a file
 * drops every lock the process holds on it: probing an OpenHFT {@code cpu-N.lock} that this very
 * JVM's application holds would free it. OpenHFT lock files ({@code ${java.io.tmpdir}/cpu-N.lock})
 * count as claims when any live process holds a lock on them, this one included.
 *
 * <p>The directory is refused (claims off, one {@code qv:} line, the application runs) when it is a
 * symbolic link, not a directory, not owned by this user, writable by group or others, or holds
 * a symbolic link or anything else that is not a plain file. Lock files are opened with
 * {@code O_NOFOLLOW}, never truncated or written.
 *
 * <p>A claimed PU is also held on OpenHFT's side ({@link OpenHftLocks}).
 */
public final class Claims {

    private Path dir;                // null: observe OpenHFT files only
    private boolean checked;         // observing: the directory was checked on first use
    private final boolean take;      // false: observe others' claims, take none
    private final Path openhft;
    private final long pid = ownPid();
    private final Map<Integer, FileChannel> held = new HashMap<>();
    private final OpenHftLocks hft;                              // null: no OpenHFT directory
    private final List<FileChannel> parked = new ArrayList<>();  // never closed: another part of this JVM locks that file
    private volatile String refused;

    private Claims(Path dir, boolean take, Path openhft) {
        this.dir = dir;
        this.take = take;
        this.openhft = openhft;
        this.hft = openhft == null ? null : new OpenHftLocks(openhft, pid);
    }

    /** The default directory: {@code /tmp/qv4j-$USER}. */
    public static Path defaultDir() {
        return Path.of("/tmp", "qv4j-" + System.getProperty("user.name", "unknown").replaceAll("[^A-Za-z0-9._-]", "_"));
    }

    /**
     * Claims in {@code dir}: created (0700) when {@code take} and missing; checked either way. When
     * refused, the result still observes OpenHFT lock files and {@link #refused()} says why.
     */
    public static Claims open(Path dir, boolean take) {
        return open(dir, take, Path.of(System.getProperty("java.io.tmpdir", "/tmp")));
    }

    /** As {@link #open(Path, boolean)}, with OpenHFT's lock files in {@code tmp} instead of {@code java.io.tmpdir} (tests). */
    public static Claims open(Path dir, boolean take, Path tmp) {
        if (!take) return new Claims(dir, false, tmp); // checked on first use, off the start-up path
        String why;
        try {
            if (take && !Files.exists(dir, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(dir)) create(dir);
            why = Files.exists(dir, LinkOption.NOFOLLOW_LINKS) || Files.isSymbolicLink(dir) ? refusal(dir) : null;
        } catch (IOException | RuntimeException e) {
            why = "cannot be used (" + e + ")";
        }
        if (why != null) {
            Claims c = new Claims(null, false, tmp);
            c.refused = "claims directory " + dir + " refused: " + why + "; node-wide claims off (claims-dir= names another)";
            Log.info(c.refused);
            return c;
        }
        return new Claims(dir, take, tmp);
    }

    private static void create(Path dir) throws IOException {
        Path parent = dir.toAbsolutePath().getParent();
        if (parent != null && !Files.isDirectory(parent)) Files.createDirectories(parent);
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        } catch (FileAlreadyExistsException e) {
            // another JVM made it first: checked below like any existing directory
        }
    }

    /** Why {@code dir} must not be used, or null. Never follows a link. */
    static String refusal(Path dir) throws IOException {
        if (Files.isSymbolicLink(dir)) return "it is a symbolic link";
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) return "it is not a directory";
        int owner = (Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        int me = ownUid();
        if (owner != me) return "it belongs to uid " + owner + ", not to this user (uid " + me + ")";
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
        if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
            return "it is writable by group or others (" + PosixFilePermissions.toString(perms) + ")";
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path p : s) {
                if (Files.isSymbolicLink(p)) return "it holds a symbolic link " + p.getFileName();
                if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) return "it holds " + p.getFileName() + ", not a plain file";
            }
        }
        return null;
    }

    /** This process's pid from /proc/self (ProcessHandle would start the JDK's process-reaper pool). */
    static long ownPid() {
        try {
            return Long.parseLong(Files.readSymbolicLink(Path.of("/proc/self")).getFileName().toString());
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The effective uid, from /proc/self/status. */
    static int ownUid() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Uid:")) return Integer.parseInt(line.substring(4).strip().split("\\s+")[1]);
        }
        throw new IOException("no Uid in /proc/self/status");
    }

    /** Why node-wide claims were refused, or null. */
    public String refused() {
        return refused;
    }

    /** Takes claims (as opposed to only observing others'). */
    public boolean takes() {
        return dir != null && take && refused == null;
    }

    public synchronized Path dir() {
        return dir;
    }

    /**
     * PUs of {@code within} that another JVM claims, or that an OpenHFT lock file held by a live
     * process (this one too) covers. When only observing, an answer is reused for
     * {@value #OBSERVE_TTL_MILLIS} ms: applications that make many short-lived pools would
     * otherwise read {@code /proc/locks} for each one. (Taking claims is exact: a lost race is
     * seen by {@link #claim} and re-planned.)
     */
    public synchronized CpuSet others(CpuSet within) {
        if (within.isEmpty()) return CpuSet.empty();
        long now = System.nanoTime();
        if (!take && within.equals(observedWithin) && now - observedAt < OBSERVE_TTL_MILLIS * 1_000_000L) return observed;
        CpuSet out = othersNow(within);
        if (!take) {
            observedWithin = within;
            observed = out;
            observedAt = now;
        }
        return out;
    }

    static final long OBSERVE_TTL_MILLIS = 100;
    private CpuSet observedWithin;
    private CpuSet observed;
    private long observedAt;

    private CpuSet othersNow(CpuSet within) {
        if (!take && !checked && dir != null) {
            checked = true;
            try {
                String why = Files.exists(dir, LinkOption.NOFOLLOW_LINKS) || Files.isSymbolicLink(dir) ? refusal(dir) : null;
                if (why != null) {
                    Log.debug("claims directory " + dir + " not read: " + why);
                    dir = null;
                }
            } catch (IOException | RuntimeException e) {
                dir = null;
            }
        }
        // Stat the candidate files first: with none there (one JVM, no OpenHFT) /proc/locks is not read.
        Map<Integer, String[]> keys = new HashMap<>();
        for (int pu : within.toArray()) {
            if (held.containsKey(pu)) continue;
            String mine = dir == null ? null : key(dir.resolve("pu-" + pu + ".lock"));
            String hft = openhft == null ? null : key(openhft.resolve("cpu-" + pu + ".lock"));
            if (mine != null || hft != null) keys.put(pu, new String[] {mine, hft});
        }
        if (keys.isEmpty()) return CpuSet.empty();
        Map<String, Long> locks = liveLocks();
        CpuSet out = CpuSet.empty();
        for (Map.Entry<Integer, String[]> k : keys.entrySet()) {
            Long holder = k.getValue()[0] == null ? null : locks.get(k.getValue()[0]);
            boolean taken = holder != null && holder != pid;
            if (!taken && k.getValue()[1] != null) taken = locks.containsKey(k.getValue()[1]);
            if (taken) out = out.or(CpuSet.of(k.getKey()));
        }
        return out;
    }

    /**
     * Claims {@code pus} (those not held yet): one exclusive lock each, held until the JVM ends.
     * Returns the PUs another process holds (lost races). Does nothing when only observing.
     */
    public synchronized CpuSet claim(CpuSet pus) {
        if (!takes()) return CpuSet.empty();
        List<Integer> fresh = new ArrayList<>();
        CpuSet lost = claimOwn(pus, fresh);
        for (int i = fresh.size() - 1; i >= 0; i--) {
            if (!held.containsKey(fresh.get(i))) fresh.remove(i); // a refusal meanwhile gave them back
        }
        if (hft != null && !fresh.isEmpty() && takes()) {
            CpuSet busy = hft.claim(fresh);
            if (!busy.isEmpty()) {
                release(busy);
                lost = lost.or(busy);
            }
        }
        return lost;
    }

    private CpuSet claimOwn(CpuSet pus, List<Integer> fresh) {
        CpuSet lost = CpuSet.empty();
        for (int pu : pus.toArray()) {
            if (held.containsKey(pu)) continue;
            Path f = dir.resolve("pu-" + pu + ".lock");
            try {
                if (Files.isSymbolicLink(f) || Files.exists(f, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                    refuse(f.getFileName() + " is " + (Files.isSymbolicLink(f) ? "a symbolic link" : "not a plain file"));
                    return lost;
                }
                FileChannel ch = FileChannel.open(f, Set.<java.nio.file.OpenOption>of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                FileLock l;
                try {
                    l = ch.tryLock();
                } catch (OverlappingFileLockException e) {
                    parked.add(ch); // another Claims of this JVM holds it: closing ch would free that lock
                    lost = lost.or(CpuSet.of(pu));
                    continue;
                }
                if (l == null) {
                    ch.close();
                    lost = lost.or(CpuSet.of(pu));
                } else {
                    held.put(pu, ch);
                    fresh.add(pu);
                }
            } catch (IOException | RuntimeException e) {
                if (Files.isSymbolicLink(f)) {
                    refuse(f.getFileName() + " is a symbolic link");
                    return lost;
                }
                Log.once("claimfail:" + pu, "cannot claim PU " + pu + " in " + dir + " (" + e + ")");
            }
        }
        return lost;
    }

    /** The PUs this JVM also holds on OpenHFT's side ({@code cpu-N.lock} in {@link #openHftDir()}); at exit, those it held. */
    public CpuSet openHftHeld() {
        return hft == null ? CpuSet.empty() : hft.held();
    }

    /** Claimed PUs whose OpenHFT lock file could not be used safely, and why (empty when none). */
    public synchronized Map<Integer, String> openHftSkipped() {
        Map<Integer, String> out = new TreeMap<>();
        if (hft == null) return out;
        for (Map.Entry<Integer, String> e : hft.skipped().entrySet()) {
            if (held.containsKey(e.getKey())) out.put(e.getKey(), e.getValue());
        }
        return out;
    }

    /** The directory of OpenHFT's lock files this JVM reads and takes: its {@code java.io.tmpdir}. */
    public Path openHftDir() {
        return openhft;
    }

    /** Gives up claims (a lost race left some the pool does not use), OpenHFT's side with them. */
    public synchronized void release(CpuSet pus) {
        for (int pu : pus.toArray()) {
            if (hft != null) hft.release(pu);
            FileChannel ch = held.remove(pu);
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // the lock goes with the descriptor
                }
            }
        }
    }

    /** The PUs this JVM claims. */
    public synchronized CpuSet mine() {
        CpuSet out = CpuSet.empty();
        for (int pu : held.keySet()) out = out.or(CpuSet.of(pu));
        return out;
    }

    private void refuse(String why) {
        refused = "claims directory " + dir + " refused: " + why + "; node-wide claims off (claims-dir= names another)";
        Log.info(refused);
        release(mine());
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
        byte[] buf = new byte[8192];
        int n = 0;
        try (java.io.FileInputStream in = new java.io.FileInputStream("/proc/locks")) {
            for (int r; (r = in.read(buf, n, buf.length - n)) > 0; ) {
                n += r;
                if (n == buf.length) buf = java.util.Arrays.copyOf(buf, buf.length * 2);
            }
        } catch (IOException | RuntimeException e) {
            return out;
        }
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
