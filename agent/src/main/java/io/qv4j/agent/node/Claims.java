package io.qv4j.agent.node;

import io.qv4j.agent.log.Log;
import io.qv4j.topology.CpuSet;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
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
 * <p>Temporary-file cleaners delete files by age, and a lock file is never written: a thread of
 * this JVM ({@code qv-claims}, started with the first claim, every {@code claims-refresh}) touches
 * the held files, and re-claims one whose path is gone or names another file than the one locked;
 * if another JVM has claimed it meanwhile, one line and the report ({@link #lost()}) say so.
 *
 * <p>Whose locks are live is asked of the kernel ({@link LockTable}) without taking a lock, and a
 * descriptor opened to ask is closed only once its file is deleted: a POSIX lock is the process's,
 * and closing <em>any</em> descriptor of a file drops every lock the process holds on it, so
 * closing a probe of an OpenHFT {@code cpu-N.lock} that this very JVM's application holds would
 * free it. OpenHFT lock files ({@code ${java.io.tmpdir}/cpu-N.lock}) count as claims when any live
 * process holds a lock on them, this one included.
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
    private final long pid = LockTable.ownPid();
    private final Map<Integer, FileChannel> held = new HashMap<>();
    private final OpenHftLocks hft;                              // null: no OpenHFT directory
    private final List<FileChannel> parked = new ArrayList<>();  // never closed: another part of this JVM locks that file
    private volatile String refused;
    private final Map<Integer, String> keys = new HashMap<>();   // the file each held lock is on (LockTable.key)
    private final Map<Integer, String> lostTo = new TreeMap<>(); // claims that vanished and another process took: by whom
    private int remade;                                          // claims made again after their file vanished
    private Path also;                                           // the other default directory: read for others' claims
    private long refreshMillis;                                  // 0: never refreshed
    private boolean keeping;                                     // the qv-claims thread runs
    private final PlanLock planLock = new PlanLock();

    private Claims(Path dir, boolean take, Path openhft) {
        this.dir = dir;
        this.take = take;
        this.openhft = openhft;
        this.hft = openhft == null ? null : new OpenHftLocks(openhft, pid);
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
            if (take && !Files.exists(dir, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(dir)) ClaimsDir.create(dir);
            why = Files.exists(dir, LinkOption.NOFOLLOW_LINKS) || Files.isSymbolicLink(dir) ? ClaimsDir.refusal(dir) : null;
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

    /** {@code DIR/watch-PID}: what {@code status --watch} touches to ask this JVM for fresh counters; null without a directory. */
    public synchronized Path watchFile() {
        return dir == null ? null : dir.resolve("watch-" + pid);
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
     * Takes the directory's plan lock ({@link PlanLock}): held from reading the others' claims to
     * taking this JVM's, it makes those reads whole. True when held: {@link #unlockPlans} follows.
     * False when claims are not taken, or another JVM holds it too long.
     */
    public boolean lockPlans() {
        return takes() && planLock.enter(dir());
    }

    /** Gives up the plan lock taken by {@link #lockPlans}. */
    public void unlockPlans() {
        planLock.exit();
    }

    /**
     * {@code now}, the {@link #others} just read, or read again while it cuts one of {@code pieces}
     * in part and changed since the last read ({@value #SETTLE_READS} reads at most,
     * {@value #SETTLE_MILLIS} ms apart), unless this JVM holds the plan lock: without it, another
     * JVM may be taking or giving back a piece's claims one PU at a time, and a plan made from a
     * piece half claimed cuts the free PUs into smaller pieces (seen in the multi-socket guest:
     * four JVMs started together, one given two PUs of a node of four). A cut that stays is
     * another JVM's finer split, and costs one more read.
     */
    public CpuSet othersSettled(CpuSet within, CpuSet now, java.util.List<CpuSet> pieces) {
        if (planLock.held()) return now;
        for (int i = 1; i < SETTLE_READS && cutsInPart(now, pieces); i++) {
            try {
                Thread.sleep(SETTLE_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return now;
            }
            CpuSet again = others(within);
            if (again.equals(now)) return now;
            now = again;
        }
        return now;
    }

    static final int SETTLE_READS = 5;
    static final long SETTLE_MILLIS = 20;

    static boolean cutsInPart(CpuSet claimed, java.util.List<CpuSet> pieces) {
        for (CpuSet piece : pieces) if (piece.intersects(claimed) && !claimed.containsAll(piece)) return true;
        return false;
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
                String why = Files.exists(dir, LinkOption.NOFOLLOW_LINKS) || Files.isSymbolicLink(dir) ? ClaimsDir.refusal(dir) : null;
                if (why != null) {
                    Log.debug("claims directory " + dir + " not read: " + why);
                    dir = null;
                }
            } catch (IOException | RuntimeException e) {
                dir = null;
            }
        }
        Path other = alsoRead();
        LockTable.Look look = new LockTable.Look();
        CpuSet out = CpuSet.empty();
        for (int pu : within.toArray()) {
            if (held.containsKey(pu)) continue;
            long mine = dir == null ? LockTable.NONE : look.holder(dir.resolve("pu-" + pu + ".lock"));
            boolean taken = mine != LockTable.NONE && mine != pid;
            if (!taken && openhft != null) taken = look.holder(openhft.resolve("cpu-" + pu + ".lock")) != LockTable.NONE;
            long there = taken || other == null ? LockTable.NONE : look.holder(other.resolve("pu-" + pu + ".lock"));
            if (there != LockTable.NONE && there != pid) taken = true;
            if (taken) out = out.or(CpuSet.of(pu));
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
        if (!keeping && refreshMillis > 0 && !held.isEmpty()) {
            keeping = true;
            KeepFresh.start(this);
        }
        return lost;
    }

    /** Refreshes the claims every {@code millis} ms ({@link #refresh}) once some are held; 0: never. */
    public synchronized void keepFresh(long millis) {
        refreshMillis = millis;
    }

    synchronized long refreshMillis() {
        return refreshMillis;
    }

    /** Reads {@code other} too for others' claims (never takes there): the default of JVMs with the other kind of environment. */
    public synchronized void alsoRead(Path other) {
        if (other != null && !other.equals(dir)) also = other;
    }

    private Path alsoRead() {
        try {
            // checked each time it is there (it may appear later): a refused one is never read again
            if (also != null && Files.isDirectory(also, LinkOption.NOFOLLOW_LINKS) && ClaimsDir.refusal(also) != null) also = null;
        } catch (IOException | RuntimeException e) {
            also = null;
        }
        return also;
    }


    /**
     * Keeps this JVM's claims where other JVMs look: touches the directory and each held lock file
     * by path (mtime; atime by a read on the held channel) so cleaners that delete old files leave
     * them, and claims again a PU whose path is gone or names another file than the one locked.
     * Never opens another descriptor of a held file: closing it would drop the lock. Returns the
     * PUs claimed again.
     */
    public synchronized CpuSet refresh() {
        if (!takes() || held.isEmpty()) return CpuSet.empty();
        long now = System.currentTimeMillis();
        KeepFresh.touch(dir, now, null);
        List<Integer> gone = new ArrayList<>();
        for (Map.Entry<Integer, FileChannel> h : held.entrySet()) {
            Path f = dir.resolve("pu-" + h.getKey() + ".lock");
            String k = keys.get(h.getKey());
            if (k != null && k.equals(LockTable.key(f))) KeepFresh.touch(f, now, h.getValue());
            else gone.add(h.getKey());
        }
        CpuSet again = gone.isEmpty() ? CpuSet.empty() : claimAgain(gone);
        if (hft != null && takes()) {
            CpuSet busy = hft.refresh(now);
            if (!busy.isEmpty()) Log.once("hftlost:" + busy, "OpenHFT's lock files for pus " + busy + " were deleted and another process holds them now;"
                    + " this JVM's claims there still hold for qv4j JVMs");
        }
        return again;
    }

    /** Claims {@code gone} again (their lock files vanished); says which another process took meanwhile. */
    private CpuSet claimAgain(List<Integer> gone) {
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(dir)) ClaimsDir.create(dir);
            String why = ClaimsDir.refusal(dir);
            if (why != null) {
                refuse(why);
                return CpuSet.empty();
            }
        } catch (IOException | RuntimeException e) {
            for (int pu : gone) lostTo.put(pu, "directory gone (" + e.getMessage() + ")");
            Log.once("claimsdir-gone", "claims directory " + dir + " vanished and cannot be made again (" + e
                    + "): other JVMs no longer see this JVM's claims on pus " + gone);
            return CpuSet.empty();
        }
        CpuSet again = CpuSet.empty();
        for (int pu : gone) {
            keys.remove(pu);
            closeQuietly(held.remove(pu)); // its file is unlinked (or no longer at the path): that lock guards nothing
            claimOwn(CpuSet.of(pu), new ArrayList<>());
            if (held.containsKey(pu)) {
                again = again.or(CpuSet.of(pu));
                remade++;
                continue;
            }
            if (refused != null) break;
            if (hft != null) hft.release(pu);
            long holder = new LockTable.Look().holder(dir.resolve("pu-" + pu + ".lock"));
            String who = holder == LockTable.NONE || holder == LockTable.UNKNOWN ? "another process" : holder == pid ? "another claims holder of this JVM" : "process " + holder;
            lostTo.put(pu, who);
            Log.once("claimlost:" + pu, "the lock file of this JVM's claim on PU " + pu + " in " + dir + " was deleted (by a temporary-file cleaner?)"
                    + " and " + who + " has claimed PU " + pu + " since: workers pinned there now share it");
        }
        if (!again.isEmpty()) Log.debug("claims on pus " + again + " made again in " + dir + ": their lock files had been deleted");
        return again;
    }

    private static void closeQuietly(FileChannel ch) {
        if (ch == null) return;
        try {
            ch.close();
        } catch (IOException ignored) {
            // the lock goes with the descriptor
        }
    }

    /** Claims whose lock file vanished and that another process has taken since, by PU: who took it. */
    public synchronized Map<Integer, String> lost() {
        return new TreeMap<>(lostTo);
    }

    /** How many claims were made again after their lock file vanished. */
    public synchronized int remade() {
        return remade;
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
                FileChannel ch = FileChannel.open(f, Set.<java.nio.file.OpenOption>of(StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
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
                    keys.put(pu, LockTable.key(f)); // null if deleted meanwhile: the next refresh claims it again
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
            keys.remove(pu);
            closeQuietly(held.remove(pu));
        }
    }

    /** Whether this JVM claims every PU of {@code pus}: then no other JVM takes or gives back any of them. */
    public synchronized boolean holdsAll(CpuSet pus) {
        for (int pu : pus.toArray()) if (!held.containsKey(pu)) return false;
        return true;
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
}
