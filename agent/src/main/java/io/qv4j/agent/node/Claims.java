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
import java.nio.ByteBuffer;
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
 * <p><b>OpenHFT's side.</b> A claimed PU is also held the way OpenHFT's {@code AffinityLock} (2026.2)
 * checks a CPU: its {@code LockChecker} opens {@code ${java.io.tmpdir}/cpu-N.lock} for reading and
 * asks for a <em>shared</em> {@code fcntl} lock ({@code FileChannel.tryLock(0, MAX, true)}); when that
 * is refused the CPU is busy, when it is granted the file is an orphan and it deletes it; taking a
 * CPU is an <em>exclusive</em> lock on the same file (opened read-write, created {@code 0666} less
 * the umask), with {@code pid\ndate} written at its start. So this class holds an exclusive lock on
 * {@code cpu-N.lock} next to {@code pu-N.lock}, with the pid first ({@code pid\nqv4j claim}). Safely, in a shared
 * temporary directory: a missing file is made with {@code O_CREAT|O_EXCL|O_NOFOLLOW}, mode
 * {@code 0644} (what OpenHFT's files end up as; OpenHFT users of other accounts can still check it);
 * an existing one is used only when it is a plain file of this user that no process holds a lock
 * on (read from {@code /proc/locks}, without opening it), opened {@code O_NOFOLLOW} without
 * {@code O_CREAT} or {@code O_TRUNC}. A file of another user or a link is skipped for that PU (said
 * once; the {@code pu-N} claim still holds). After locking, {@code /proc/locks} must show this
 * process holding the path's inode (OpenHFT may delete a file between its creation and the lock),
 * else the attempt is dropped. If the channel runs into a lock another part of this JVM holds on
 * the file ({@code OverlappingFileLockException}), it is kept open, never closed: closing it would
 * free that lock. Released (file deleted while still locked, as OpenHFT does, then closed) with the
 * claim and at a normal JVM exit; a killed JVM leaves the file, unlocked, like OpenHFT.
 *
 * <p>Limit: an application in <em>this</em> JVM that uses OpenHFT's {@code AffinityLock} itself
 * probes {@code cpu-N.lock} and, closing its probe, drops this JVM's lock on it (POSIX locks belong
 * to the process). The {@code pu-N} claims are not affected, and the planner counts that
 * application's own locks as taken.
 */
public final class Claims {

    private Path dir;                // null: observe OpenHFT files only
    private boolean checked;         // observing: the directory was checked on first use
    private final boolean take;      // false: observe others' claims, take none
    private final Path openhft;
    private final long pid = ownPid();
    private final Map<Integer, FileChannel> held = new HashMap<>();
    private final Map<Integer, Hft> hft = new HashMap<>();       // OpenHFT-side locks held, by PU
    private final Map<Integer, String> hftSkipped = new TreeMap<>(); // PUs whose OpenHFT file was not used, and why
    private final List<FileChannel> parked = new ArrayList<>();  // never closed: another part of this JVM locks that file
    private boolean exitHook;
    private Integer uid;
    private volatile String refused;

    /** An exclusive lock on an OpenHFT {@code cpu-N.lock}: the channel, and the file's key when locked. */
    private record Hft(FileChannel channel, String key) {
    }

    private Claims(Path dir, boolean take, Path openhft) {
        this.dir = dir;
        this.take = take;
        this.openhft = openhft;
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
        if (openhft != null && !fresh.isEmpty() && takes()) {
            CpuSet busy = claimOpenHft(fresh);
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

    /**
     * Takes OpenHFT's {@code cpu-N.lock} for each PU just claimed (see the class comment). Returns the
     * PUs whose OpenHFT file a live process holds (this one's application included): those are lost.
     */
    private CpuSet claimOpenHft(List<Integer> pus) {
        CpuSet busy = CpuSet.empty();
        Map<String, Long> locks = null;
        Map<Integer, FileChannel> taken = new HashMap<>();
        Map<Integer, Boolean> made = new HashMap<>();
        if (uid == null) {
            try {
                uid = ownUid();
            } catch (IOException | RuntimeException e) {
                skipHft(pus.get(0), "this user's uid is unknown (" + e + ")");
                return busy;
            }
        }
        int me = uid;
        for (int pu : pus) {
            if (hft.containsKey(pu)) continue;
            Path f = openhft.resolve("cpu-" + pu + ".lock");
            FileChannel ch = null;
            boolean created = false;
            try {
                BasicFileAttributes a = attributes(f);
                if (a == null) {
                    try {
                        ch = FileChannel.open(f, Set.<java.nio.file.OpenOption>of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));
                        created = true;
                    } catch (FileAlreadyExistsException raced) {
                        a = attributes(f); // made meanwhile (by OpenHFT, most likely): judged like any existing file
                        if (a == null) continue;
                    }
                }
                if (ch == null) {
                    if (a.isSymbolicLink()) {
                        skipHft(pu, f + " is a symbolic link");
                        continue;
                    }
                    if (!a.isRegularFile()) {
                        skipHft(pu, f + " is not a plain file");
                        continue;
                    }
                    if (locks == null) locks = liveLocks();
                    if (locks.containsKey(key(f))) { // held by an OpenHFT user: busy, and not opened
                        busy = busy.or(CpuSet.of(pu));
                        continue;
                    }
                    int owner = (Integer) Files.getAttribute(f, "unix:uid", LinkOption.NOFOLLOW_LINKS);
                    if (owner != me) {
                        skipHft(pu, f + " belongs to uid " + owner);
                        continue;
                    }
                    ch = FileChannel.open(f, Set.<java.nio.file.OpenOption>of(StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS));
                }
                FileLock l;
                try {
                    l = ch.tryLock();
                } catch (OverlappingFileLockException e) {
                    parked.add(ch); // this JVM already locks that file elsewhere: closing ch would free that lock
                    busy = busy.or(CpuSet.of(pu));
                    continue;
                }
                if (l == null) {
                    ch.close();
                    busy = busy.or(CpuSet.of(pu));
                    continue;
                }
                taken.put(pu, ch);
                made.put(pu, created);
            } catch (IOException | RuntimeException e) {
                if (ch != null) closeQuietly(ch);
                skipHft(pu, "cannot use " + f + " (" + e + ")");
            }
        }
        if (taken.isEmpty()) return busy;
        // The path must still name the inode locked: OpenHFT deletes a file it finds unlocked.
        Map<String, Long> after = liveLocks();
        // OpenHFT reads the pid up to the first newline; the second line says who wrote it (no date: java.time costs ~100 ms cold)
        byte[] content = (pid + "\nqv4j claim\n").getBytes(StandardCharsets.US_ASCII);
        for (Map.Entry<Integer, FileChannel> t : taken.entrySet()) {
            int pu = t.getKey();
            FileChannel ch = t.getValue();
            String k = key(openhft.resolve("cpu-" + pu + ".lock"));
            Long holder = k == null ? null : after.get(k);
            if (holder == null || holder != pid) {
                closeQuietly(ch); // an unlinked inode nobody else in this JVM has open
                if (holder != null) busy = busy.or(CpuSet.of(pu));
                else skipHft(pu, "its OpenHFT lock file was deleted while being locked");
                continue;
            }
            try {
                ch.write(ByteBuffer.wrap(content), 0); // this user's file, locked: OpenHFT reads the pid from it
                ch.truncate(content.length);
            } catch (IOException e) {
                // the lock is what counts
            }
            hft.put(pu, new Hft(ch, k));
            hftSkipped.remove(pu);
        }
        if (!hft.isEmpty() && !exitHook) {
            exitHook = true;
            try {
                Runtime.getRuntime().addShutdownHook(new Thread(new Runnable() { // no lambda: cold invokedynamic costs milliseconds
                    @Override
                    public void run() {
                        releaseAllOpenHft();
                    }
                }, "qv-claims-exit"));
            } catch (IllegalStateException | SecurityException e) {
                // exiting already: the files stay, unlocked, as OpenHFT's do
            }
        }
        return busy;
    }

    private void skipHft(int pu, String why) {
        hftSkipped.put(pu, why);
        Log.once("openhft-skip", "OpenHFT's lock file for PU " + pu + " is not taken: " + why
                + "; an OpenHFT AffinityLock in another JVM may not see this claim (other qv4j JVMs do)");
    }

    private static BasicFileAttributes attributes(Path f) throws IOException {
        try {
            return Files.readAttributes(f, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (java.nio.file.NoSuchFileException e) {
            return null;
        }
    }

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    private void releaseOpenHft(int pu) {
        Hft h = hft.remove(pu);
        if (h == null) return;
        Path f = openhft.resolve("cpu-" + pu + ".lock");
        try {
            if (h.key().equals(key(f))) Files.deleteIfExists(f); // still locked: nobody can have replaced it meanwhile
        } catch (IOException | RuntimeException ignored) {
            // the lock goes with the descriptor; the file stays, like OpenHFT's own after a crash
        }
        closeQuietly(h.channel());
    }

    private synchronized void releaseAllOpenHft() {
        heldAtExit = openHftHeld(); // a report written at exit still says what was held
        for (int pu : new ArrayList<>(hft.keySet())) releaseOpenHft(pu);
    }

    private CpuSet heldAtExit = CpuSet.empty();

    /** The PUs this JVM also holds on OpenHFT's side ({@code cpu-N.lock} in {@link #openHftDir()}); at exit, those it held. */
    public synchronized CpuSet openHftHeld() {
        CpuSet out = heldAtExit;
        for (int pu : hft.keySet()) out = out.or(CpuSet.of(pu));
        return out;
    }

    /** Claimed PUs whose OpenHFT lock file could not be used safely, and why (empty when none). */
    public synchronized Map<Integer, String> openHftSkipped() {
        Map<Integer, String> out = new TreeMap<>();
        for (Map.Entry<Integer, String> e : hftSkipped.entrySet()) {
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
            releaseOpenHft(pu);
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
