package io.qv4j.agent.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The agent's per-user cache directory, where it keeps what later starts may reuse (the JNI
 * library, rewritten JDK classes): {@code $XDG_CACHE_HOME/qv4j}, else {@code ~/.cache/qv4j}, else,
 * where neither can be used, {@code $java.io.tmpdir/qv4j-$USER}. A home that is not an absolute
 * path (a user with no passwd entry gets {@code ?}) is skipped, so nothing is created in the
 * working directory.
 *
 * <p>The directory is created owner-only and used only while it is a real directory (no link) of
 * this user that nobody else may write to; a file in it is read only when it is a regular file of
 * this user that nobody else may write to, opened without following links and never beyond a size
 * limit. So another user's cache is never read, and what a file holds is trusted only as far as
 * this user's own files are: callers still check content (checksums) against damage.
 */
public final class UserCache {

    private static final Set<PosixFilePermission> OWNER_DIR = PosixFilePermissions.fromString("rwx------");

    private UserCache() {
    }

    /** The first usable cache directory, created owner-only when missing; null when there is none. */
    public static Path dir() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        String home = System.getProperty("user.home", "");
        Path[] candidates = {
            absolute(xdg),
            absolute(home) == null ? null : absolute(home).resolve(".cache"),
        };
        for (Path base : candidates) {
            Path dir = usable(base == null ? null : base.resolve("qv4j"));
            if (dir != null) return dir;
        }
        Path tmp = absolute(System.getProperty("java.io.tmpdir"));
        return usable(tmp == null ? null : tmp.resolve("qv4j-" + UserFiles.fileName(System.getProperty("user.name", "unknown"))));
    }

    private static Path absolute(String s) {
        if (s == null || s.isEmpty()) return null;
        try {
            Path p = Path.of(s);
            return p.isAbsolute() ? p : null;
        } catch (RuntimeException invalid) {
            return null;
        }
    }

    private static Path usable(Path dir) {
        if (dir == null) return null;
        try {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(dir.getParent());
                try {
                    Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_DIR));
                } catch (FileAlreadyExistsException raced) {
                    // checked below like any existing directory
                }
            }
            checkOwn(dir);
            return dir;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Refuses a link, a file or directory of another user, or one that others may write to.
     *
     * @throws IOException naming the path and why
     */
    public static void checkOwn(Path p) throws IOException {
        PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.isSymbolicLink()) throw new IOException(p + " is a symbolic link");
        if (!a.owner().getName().equals(System.getProperty("user.name"))) throw new IOException(p + " belongs to " + a.owner().getName());
        Set<PosixFilePermission> perms = a.permissions();
        if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IOException(p + " is writable by others (" + PosixFilePermissions.toString(perms) + ")");
        }
    }

    /**
     * A regular file of this user in the cache, read whole without following a link; null when
     * there is none, it is not a regular file of this user, or it is larger than {@code maxBytes}.
     */
    public static byte[] read(Path file, int maxBytes) {
        try {
            PosixFileAttributes a = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isRegularFile() || a.size() > maxBytes) return null;
            checkOwn(file);
            try (SeekableByteChannel ch = Files.newByteChannel(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
                long size = ch.size();
                if (size > maxBytes) return null;
                ByteBuffer b = ByteBuffer.allocate((int) size);
                while (b.hasRemaining() && ch.read(b) >= 0) {
                    // until full or at the end
                }
                return b.hasRemaining() ? null : b.array();
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Writes {@code data} as {@code name} in the cache directory {@code dir}: to an exclusively
     * created owner-only temporary file, then renamed over the name (see {@link UserFiles#writeAtomically}).
     */
    public static void write(Path dir, String name, byte[] data) throws IOException {
        UserFiles.writeAtomically(dir.resolve(name), data);
    }
}
