package io.qv4j.agent.node;

import io.qv4j.agent.boot.AgentThread;
import io.qv4j.agent.io.UserFiles;
import io.qv4j.agent.log.Log;
import io.qv4j.topology.CpuSet;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The OpenHFT side of node-wide {@link Claims}: a claimed PU is also held the way OpenHFT's {@code AffinityLock} (2026.2)
 * checks a CPU: its {@code LockChecker} opens {@code ${java.io.tmpdir}/cpu-N.lock} for reading and
 * asks for a <em>shared</em> {@code fcntl} lock ({@code FileChannel.tryLock(0, MAX, true)}); when that
 * is refused the CPU is busy, when it is granted the file is an orphan and it deletes it; taking a
 * CPU is an <em>exclusive</em> lock on the same file (opened read-write, created {@code 0666} less
 * the umask), with {@code pid\ndate} written at its start. So this class holds an exclusive lock on
 * {@code cpu-N.lock} next to {@code pu-N.lock}, with the pid first ({@code pid\nqv4j claim}). Safely, in a shared
 * temporary directory: a missing file is made with {@code O_CREAT|O_EXCL|O_NOFOLLOW}, mode
 * {@code 0644} (what OpenHFT's files end up as; OpenHFT users of other accounts can still check it);
 * an existing one is used only when it is a plain file of this user that no process holds a lock
 * on ({@link LockTable}: nothing opened to ask is closed), opened {@code O_NOFOLLOW} without
 * {@code O_CREAT} or {@code O_TRUNC}. A file of another user or a link is skipped for that PU (said
 * once; the {@code pu-N} claim still holds). After locking, the path must still name the file
 * locked (OpenHFT may delete a file between its creation and the lock; asked of the JVM's own lock
 * table, {@link #named}), else the attempt is dropped. If the channel runs into a lock another part of this JVM holds on
 * the file ({@code OverlappingFileLockException}), it is kept open, never closed: closing it would
 * free that lock. Released (file deleted while still locked, as OpenHFT does, then closed) with the
 * claim and at a normal JVM exit; a killed JVM leaves the file, unlocked, like OpenHFT.
 *
 * <p>Limit: an application in <em>this</em> JVM that uses OpenHFT's {@code AffinityLock} itself
 * probes {@code cpu-N.lock} and, closing its probe, drops this JVM's lock on it (POSIX locks belong
 * to the process). The {@code pu-N} claims are not affected, and the planner counts that
 * application's own locks as taken.
 */
final class OpenHftLocks {

    /**
     * An exclusive lock on an OpenHFT {@code cpu-N.lock}: the channel, the channel that saw the
     * path still names the file locked ({@link #named}; closed only with the lock), and the file's
     * key when locked.
     */
    private record Hft(FileChannel channel, FileChannel probe, String key) {
        void close() {
            closeQuietly(channel);
            closeQuietly(probe);
        }
    }

    private final Path dir;
    private final long pid;
    private final Map<Integer, Hft> hft = new HashMap<>();           // locks held, by PU
    private final Map<Integer, String> hftSkipped = new TreeMap<>();  // PUs whose file was not used, and why
    private final List<FileChannel> parked = new ArrayList<>();      // never closed: another part of this JVM locks that file
    private boolean exitHook;
    private Integer uid;
    private CpuSet heldAtExit = CpuSet.empty();

    OpenHftLocks(Path dir, long pid) {
        this.dir = dir;
        this.pid = pid;
    }

    /**
     * Takes OpenHFT's {@code cpu-N.lock} for each PU just claimed (see the class comment). Returns the
     * PUs whose OpenHFT file a live process holds (this one's application included): those are lost.
     * A worker claims on its own thread, which the application may have interrupted: the interrupt
     * would close the file's channel as the pid is written, and the lock with it (seen: an empty
     * file, no lock, nothing said). So it is held off meanwhile and given back.
     */
    synchronized CpuSet claim(List<Integer> pus) {
        boolean interrupted = Thread.interrupted();
        try {
            return take(pus);
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    private CpuSet take(List<Integer> pus) {
        CpuSet busy = CpuSet.empty();
        LockTable.Look look = new LockTable.Look();
        Map<Integer, FileChannel> taken = new HashMap<>();
        Map<Integer, Boolean> made = new HashMap<>();
        if (uid == null) {
            try {
                uid = UserFiles.ownUid();
            } catch (IOException | RuntimeException e) {
                skipHft(pus.get(0), "this user's uid is unknown (" + e + ")");
                return busy;
            }
        }
        int me = uid;
        for (int pu : pus) {
            if (hft.containsKey(pu)) continue;
            Path f = dir.resolve("cpu-" + pu + ".lock");
            FileChannel ch = null;
            boolean created = false;
            try {
                BasicFileAttributes a = attributes(f);
                if (a == null) {
                    try {
                        ch = FileChannel.open(f, Set.<java.nio.file.OpenOption>of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
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
                    if (look.holder(f) != LockTable.NONE) { // held by an OpenHFT user: busy, and not opened
                        busy = busy.or(CpuSet.of(pu));
                        continue;
                    }
                    int owner = (Integer) Files.getAttribute(f, "unix:uid", LinkOption.NOFOLLOW_LINKS);
                    if (owner != me) {
                        skipHft(pu, f + " belongs to uid " + owner);
                        continue;
                    }
                    ch = FileChannel.open(f, Set.<java.nio.file.OpenOption>of(StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS));
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
        // OpenHFT reads the pid up to the first newline; the second line says who wrote it (no date: java.time costs ~100 ms cold)
        byte[] content = (pid + "\nqv4j claim\n").getBytes(StandardCharsets.US_ASCII);
        for (Map.Entry<Integer, FileChannel> t : taken.entrySet()) {
            int pu = t.getKey();
            FileChannel ch = t.getValue();
            Path f = dir.resolve("cpu-" + pu + ".lock");
            FileChannel[] probe = new FileChannel[1];
            int now = named(f, probe);
            if (now != OURS) {
                closeQuietly(ch); // an unlinked inode nobody else in this JVM has open
                if (now == BUSY) busy = busy.or(CpuSet.of(pu));
                else skipHft(pu, "its OpenHFT lock file was deleted while being locked");
                continue;
            }
            try {
                ch.write(ByteBuffer.wrap(content), 0); // this user's file, locked: OpenHFT reads the pid from it
                ch.truncate(content.length);
            } catch (IOException e) {
                // the lock is what counts
            }
            hft.put(pu, new Hft(ch, probe[0], LockTable.key(f)));
            hftSkipped.remove(pu);
        }
        if (!hft.isEmpty() && !exitHook) {
            exitHook = true;
            try {
                Runtime.getRuntime().addShutdownHook(new AgentThread("qv-claims-exit", new Runnable() { // no lambda: cold invokedynamic costs milliseconds
                    @Override
                    public void run() {
                        releaseAll();
                    }
                }));
            } catch (IllegalStateException | SecurityException e) {
                // exiting already: the files stay, unlocked, as OpenHFT's do
            }
        }
        return busy;
    }

    /** {@link #named}'s answers: the file this JVM locked, one another process holds, none of either. */
    static final int OURS = 0;
    static final int BUSY = 1;
    static final int GONE = 2;

    /**
     * What {@code f} names now, just after this JVM locked the file it opened there: OpenHFT
     * deletes a file it finds unlocked, so between the open and the lock the path may have come to
     * name another file. Asked of the JVM's own table of locks, not {@code /proc/locks}, whose
     * every read waits for an RCU grace period unless another read came just before (the kernel
     * takes its file-lock semaphore for writing: 6-16 ms here, and every process's file locking
     * on the node waits meanwhile). A channel on {@code f} asks for a shared lock: the JVM refuses
     * it ({@code OverlappingFileLockException}) exactly when {@code f} names a file this JVM
     * locks: {@link #OURS}, and that channel goes in {@code kept}, to be kept open beside the lock,
     * since closing it would free the lock (POSIX locks belong to the process). Refused by the
     * kernel: another process holds the file {@code f} names now ({@link #BUSY}). Granted, or no
     * file: ours was deleted ({@link #GONE}). (A constant and an array, not a record: a claim runs
     * at start, where each class more costs a cold JVM.)
     */
    static int named(Path f, FileChannel[] kept) {
        FileChannel probe = null;
        try {
            BasicFileAttributes a = attributes(f);
            if (a == null || !a.isRegularFile()) return GONE;
            probe = FileChannel.open(f, Set.<java.nio.file.OpenOption>of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
            FileLock l;
            try {
                l = probe.tryLock(0, Long.MAX_VALUE, true);
            } catch (OverlappingFileLockException ours) {
                kept[0] = probe;
                return OURS;
            }
            closeQuietly(probe); // no lock of this JVM's on that file: closing frees none
            return l == null ? BUSY : GONE;
        } catch (IOException | RuntimeException e) {
            if (probe != null) closeQuietly(probe);
            return GONE;
        }
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

    /**
     * Touches each held {@code cpu-N.lock} (cleaners delete old files in {@code /tmp}); one that was
     * deleted or replaced is taken again as {@link #claim} would. Returns the PUs whose file another
     * process holds now.
     */
    synchronized CpuSet refresh(long now) {
        List<Integer> gone = new ArrayList<>();
        for (Map.Entry<Integer, Hft> e : hft.entrySet()) {
            Path f = dir.resolve("cpu-" + e.getKey() + ".lock");
            if (e.getValue().key().equals(LockTable.key(f))) KeepFresh.touch(f, now, e.getValue().channel());
            else gone.add(e.getKey());
        }
        if (gone.isEmpty()) return CpuSet.empty();
        for (int pu : gone) hft.remove(pu).close(); // an unlinked inode: its lock guards nothing
        return claim(gone);
    }

    synchronized void release(int pu) {
        Hft h = hft.remove(pu);
        if (h == null) return;
        Path f = dir.resolve("cpu-" + pu + ".lock");
        try {
            if (h.key().equals(LockTable.key(f))) Files.deleteIfExists(f); // still locked: nobody can have replaced it meanwhile
        } catch (IOException | RuntimeException ignored) {
            // the lock goes with the descriptor; the file stays, like OpenHFT's own after a crash
        }
        h.close();
    }

    private synchronized void releaseAll() {
        heldAtExit = held(); // a report written at exit still says what was held
        for (int pu : new ArrayList<>(hft.keySet())) release(pu);
    }


    /** The PUs held on OpenHFT's side; at exit, those it held. */
    synchronized CpuSet held() {
        CpuSet out = heldAtExit;
        for (int pu : hft.keySet()) out = out.or(CpuSet.of(pu));
        return out;
    }

    /** PUs whose OpenHFT lock file was not used, and why. */
    synchronized Map<Integer, String> skipped() {
        return new TreeMap<>(hftSkipped);
    }
}
