package io.qv4j.agent.io;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
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

    /** The resource the jar build writes (the hex digest of the agent's hidden entries). */
    public static final String BUILD_ID_RESOURCE = "qv4j-build-id";
    private static final Set<PosixFilePermission> OWNER_DIR = PosixFilePermissions.fromString("rwx------");
    /**
     * The last answer of {@link #dir} and what it was worked out from: a start asks three times
     * (class cache, JNI library, topology), and each check of the directory costs a cold JVM a
     * stat.
     */
    private static volatile Object[] lastDir = {null, null};

    private UserCache() {
    }

    /** The first usable cache directory, created owner-only when missing; null when there is none. */
    public static Path dir() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        String home = System.getProperty("user.home", "");
        String from = xdg + '\0' + home + '\0' + System.getProperty("java.io.tmpdir") + '\0' + System.getProperty("user.name");
        Object[] last = lastDir;
        if (from.equals(last[0])) return (Path) last[1];
        Path dir = find(xdg, home);
        lastDir = new Object[] {from, dir};
        return dir;
    }

    private static Path find(String xdg, String home) {
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
            checkOwn(dir, attributes(dir));
            return dir;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Refuses a link, a file or directory of another user, or one that others may write to. The
     * owner is compared by uid: a name would cost a passwd lookup per file.
     *
     * @throws IOException naming the path and why
     */
    private static void checkOwn(Path p, Map<String, Object> a) throws IOException {
        if ((Boolean) a.get("isSymbolicLink")) throw new IOException(p + " is a symbolic link");
        int uid = (Integer) a.get("uid");
        if (uid != UserFiles.ownUid()) throw new IOException(p + " belongs to uid " + uid);
        int mode = (Integer) a.get("mode");
        if ((mode & 022) != 0) throw new IOException(p + " is writable by others (mode " + Integer.toOctalString(mode & 0777) + ")");
    }

    /** What {@link #checkOwn} and {@link #read} look at, without following a link or naming the owner. */
    private static Map<String, Object> attributes(Path p) throws IOException {
        return Files.readAttributes(p, "unix:uid,mode,size,isRegularFile,isSymbolicLink", LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * A regular file of this user in the cache, read whole without following a link; null when
     * there is none, it is not a regular file of this user, or it is larger than {@code maxBytes}.
     */
    public static byte[] read(Path file, int maxBytes) {
        try {
            Map<String, Object> a = attributes(file);
            if (!(Boolean) a.get("isRegularFile") || (Long) a.get("size") > maxBytes) return null;
            checkOwn(file, a);
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

    /**
     * The first 16 hex digits of the agent's build id, which keys every entry whose content
     * depends on the agent's code; null where the classes do not come from the agent jar (tests),
     * so that nothing is cached there.
     */
    public static String buildId() {
        try (InputStream in = UserCache.class.getClassLoader().getResourceAsStream(BUILD_ID_RESOURCE)) {
            if (in == null) return null;
            String id = new String(in.readNBytes(128), StandardCharsets.US_ASCII).strip();
            return hex(id) && id.length() >= 16 ? id.substring(0, 16) : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static boolean hex(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) return false;
        }
        return true;
    }

    /** Keeps the newest {@code keep} files of {@code dir} whose names end in {@code suffix}: builds, JDKs and machines come and go. */
    public static void trim(Path dir, String suffix, int keep) throws IOException {
        List<Path> entries = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*" + suffix)) {
            for (Path p : ds) entries.add(p);
        }
        if (entries.size() <= keep) return;
        entries.sort(Collections.reverseOrder(BY_MODIFIED));
        for (Path p : entries.subList(keep, entries.size())) Files.deleteIfExists(p);
    }

    private static final Comparator<Path> BY_MODIFIED = new Comparator<>() {
        @Override
        public int compare(Path a, Path b) {
            return modified(a).compareTo(modified(b));
        }
    };

    private static FileTime modified(Path p) {
        try {
            return Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException gone) {
            return FileTime.fromMillis(0);
        }
    }
}
