package io.qv4j.agent.node;

import io.qv4j.agent.log.Log;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The claims directory's plan lock, {@code plan.lock}: a JVM holds it from reading the others'
 * claims to taking its own, so no other JVM reads a piece half claimed or half given back (a
 * claim is one lock per PU, taken one at a time). Reentrant within the JVM.
 *
 * <p>Waited for at most {@value #WAIT_MILLIS} ms, then the plan goes on without it (as before
 * there was one): a JVM stopped while it holds the lock (SIGSTOP, a debugger) delays the others'
 * plans, never blocks them. After such a wait the next ones wait {@value #AFTER_TIMEOUT_MILLIS}
 * ms until the lock is had again, so an application that makes many pools beside a stopped JVM
 * does not pay the whole wait for each.
 *
 * <p>The file is opened once with {@code O_NOFOLLOW}, never written, and kept open: closing a
 * descriptor would drop the process's locks on it. If its path comes to name another file (a
 * temporary-file cleaner deleted it), it is opened again: looked at when the lock is entered, at
 * most every {@value #KEY_CHECK_MILLIS} ms (a {@code stat} through {@code Files} was a tenth of a
 * short-lived pool's plan; a file deleted meanwhile is seen that much later).
 */
final class PlanLock {

    static final long WAIT_MILLIS = 500;
    static final long AFTER_TIMEOUT_MILLIS = 10;
    private static final long POLL_MILLIS = 1;
    static final long KEY_CHECK_MILLIS = 100;

    private FileChannel channel;
    private Object key;       // the file the channel is on: its file key (device and inode)
    private FileLock lock;
    private long keyChecked;  // System.nanoTime() of the last look at the path's file key
    private int depth;
    private boolean timedOut;

    /** Takes the lock in {@code dir} (or counts one more holder); false when it could not be had: nothing to {@link #exit}. */
    synchronized boolean enter(Path dir) {
        if (depth > 0) {
            depth++;
            return true;
        }
        Path f = dir.resolve("plan.lock");
        long deadline = System.nanoTime() + (timedOut ? AFTER_TIMEOUT_MILLIS : WAIT_MILLIS) * 1_000_000L;
        try {
            if (channel == null) {
                open(f);
            } else if (System.nanoTime() - keyChecked >= KEY_CHECK_MILLIS * 1_000_000L) {
                if (!key.equals(fileKey(f))) open(f);
                keyChecked = System.nanoTime();
            }
            while (true) {
                FileLock l;
                try {
                    l = channel.tryLock();
                } catch (OverlappingFileLockException e) {
                    l = null; // another Claims of this JVM on the same directory holds it (tests)
                }
                if (l != null) {
                    lock = l;
                    depth = 1;
                    timedOut = false;
                    return true;
                }
                if (System.nanoTime() - deadline >= 0) break;
                Thread.sleep(POLL_MILLIS);
            }
            if (!timedOut) Log.debug("plan lock " + f + " held by another JVM past " + WAIT_MILLIS + " ms: planning without it");
            timedOut = true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the application's: kept (tryLock itself is not interruptible)
        } catch (IOException | RuntimeException e) {
            forget();
            Log.once("planlock", "cannot use the plan lock " + f + " (" + e + "): plans read other JVMs' claims without it");
        }
        return false;
    }

    /** Gives up one hold: the lock goes with the last. */
    synchronized void exit() {
        if (depth == 0 || --depth > 0) return;
        try {
            lock.release();
        } catch (IOException ignored) {
            // the lock goes with the descriptor at exit at the latest
        }
        lock = null;
    }

    /** Whether this JVM holds the lock now. */
    synchronized boolean held() {
        return depth > 0;
    }

    /** Closes the channel, if any: its file is gone from the path, or it failed; the next {@link #enter} opens it again. */
    private void forget() {
        try {
            if (channel != null) channel.close();
        } catch (IOException ignored) {
            // nothing held on it
        }
        channel = null;
        key = null;
    }

    /** The plain file's key (device and inode), never through a link; null for anything else or nothing. */
    private static Object fileKey(Path f) {
        try {
            BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return a.isRegularFile() ? a.fileKey() : null;
        } catch (IOException e) {
            return null;
        }
    }

    private void open(Path f) throws IOException {
        forget();
        FileChannel ch = FileChannel.open(f, Set.<OpenOption>of(StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Object k = fileKey(f);
        if (k == null) {
            ch.close();
            throw new IOException(f.getFileName() + " is not a plain file");
        }
        channel = ch;
        key = k;
        keyChecked = System.nanoTime();
    }
}
