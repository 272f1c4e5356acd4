package io.qv4j.agent.io;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Reading and writing the files a user names in options (a rules file, a topology XML, a report),
 * so that no value can make the agent block, exhaust the heap, or damage anything but the file
 * it was asked to write. Every failure is an {@link IOException} whose message starts with the path
 * and says what was refused and why.
 *
 * <p>Reading: only a regular file (a symbolic link to one is fine), at most {@code maxBytes} bytes.
 * FIFOs, devices ({@code /dev/stdin} on a terminal or pipe, {@code /dev/zero}), sockets and
 * directories are refused from their type, before they are opened, since opening a FIFO that has no
 * writer blocks. What remains is a race: a file swapped for a FIFO between the check and the open
 * still blocks; it takes someone who may write to that directory.
 *
 * <p>Writing ({@link #writeAtomically}), the rule: the path names a file in an existing directory;
 * no component may be {@code .} or {@code ..} (so the file is in the directory the text names, and
 * a typo cannot climb out of it); a relative path is taken from the working directory; directories
 * are never created. The data goes to a new temporary file in that directory, created exclusively
 * (a link planted at its name is refused, never followed) and owner-only, then renamed over the
 * target. The target may be missing or a regular file owned by the writing user; anything else
 * there (a symbolic link, a FIFO, a device such as {@code /dev/null}, a directory) is refused and
 * left as it is. A new file stays owner-only; a replaced one keeps its permissions.
 */
public final class UserFiles {

    private static final int TEMP_NAME_TRIES = 8;
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private UserFiles() {
    }

    /** This process's effective uid, read once; -1 until then. */
    private static volatile int ownUid = -1;

    /**
     * The effective uid, from /proc/self/status ({@code Uid:} real, effective, saved, fs): what
     * owns the files this process makes, compared with a file's owner by number, never by name (a
     * name costs a passwd lookup, over the network where users come from LDAP).
     *
     * @throws IOException where /proc/self/status gives none
     */
    public static int ownUid() throws IOException {
        int known = ownUid;
        if (known >= 0) return known;
        byte[] b = proc("/proc/self/status");
        String status = b == null ? "" : new String(b, StandardCharsets.ISO_8859_1);
        int line = status.startsWith("Uid:") ? 0 : status.indexOf("\nUid:");
        if (line < 0) throw new IOException("no Uid in /proc/self/status");
        int i = status.indexOf(':', line) + 1;
        for (int field = 0; ; field++) {
            while (i < status.length() && (status.charAt(i) == ' ' || status.charAt(i) == '\t')) i++;
            int start = i;
            while (i < status.length() && status.charAt(i) >= '0' && status.charAt(i) <= '9') i++;
            if (i == start) throw new IOException("no effective uid in /proc/self/status");
            if (field == 1) return ownUid = Integer.parseInt(status.substring(start, i));
        }
    }

    /**
     * A /proc file whole (its size is unknown until read), with java.io and no charset decoder:
     * the readers of Files pull in a dozen classes a cold start must load; null when unreadable.
     */
    public static byte[] proc(String file) {
        byte[] buf = new byte[8192];
        int n = 0;
        try (java.io.FileInputStream in = new java.io.FileInputStream(file)) {
            for (int r; (r = in.read(buf, n, buf.length - n)) > 0; ) {
                n += r;
                if (n == buf.length) buf = Arrays.copyOf(buf, buf.length * 2);
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return Arrays.copyOf(buf, n);
    }

    /** {@code name} with every character but ASCII letters, digits, {@code .}, {@code _} and {@code -} made {@code _}: a safe file-name part. */
    public static String fileName(String name) {
        StringBuilder b = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean plain = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-';
            b.append(plain ? c : '_');
        }
        return b.toString();
    }

    /**
     * The whole content of a regular file of at most {@code maxBytes} bytes.
     *
     * @throws IOException naming the path: missing, not a regular file (and what it is), too large, unreadable
     */
    public static byte[] read(Path file, long maxBytes) throws IOException {
        if (maxBytes < 0) throw new IllegalArgumentException("maxBytes " + maxBytes);
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(file, BasicFileAttributes.class); // follows links: a link to a file is fine
        } catch (NoSuchFileException e) {
            throw new IOException(file + ": no such file" + (Files.isSymbolicLink(file) ? " (a symbolic link to nothing)" : ""));
        }
        if (!attrs.isRegularFile()) {
            throw new IOException(file + ": " + kind(file, attrs, true) + ", not a regular file: not read (it could block or never end)");
        }
        if (attrs.size() > maxBytes) throw tooLarge(file, maxBytes);
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes((int) Math.min(maxBytes + 1, Integer.MAX_VALUE - 8));
            if (bytes.length > maxBytes) throw tooLarge(file, maxBytes); // it grew since the check
            return bytes;
        }
    }

    private static IOException tooLarge(Path file, long maxBytes) {
        return new IOException(file + ": larger than " + maxBytes + " bytes, the limit for this file: not read");
    }

    /**
     * Replaces or creates {@code target} with {@code data}, as the class comment says: never
     * through a link, never over anything but a regular file of the user's, never creating directories.
     *
     * @throws IOException naming the path and what was refused; nothing is left behind
     */
    public static void writeAtomically(Path target, byte[] data) throws IOException {
        writeAtomically(target, data, UserFiles::randomTempName);
    }

    /** {@link #writeAtomically(Path, byte[])} with temporary names from {@code tempNames} (for tests). */
    static void writeAtomically(Path target, byte[] data, Supplier<String> tempNames) throws IOException {
        Path name = checkedName(target);
        Path dir = target.toAbsolutePath().getParent();
        BasicFileAttributes dirAttrs;
        try {
            dirAttrs = Files.readAttributes(dir, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            throw new IOException(target + ": the directory " + dir + " does not exist (directories are not created)");
        }
        if (!dirAttrs.isDirectory()) throw new IOException(target + ": " + dir + " is not a directory");
        BasicFileAttributes existing = attributesNoFollow(target);
        if (existing != null && !existing.isRegularFile()) {
            throw new IOException(target + ": " + kind(target, existing, false) + " is there: not replaced (only a regular file is)");
        }

        Temp created = createTemp(dir, name.toString(), tempNames, target);
        Path temp = created.path();
        boolean done = false;
        try {
            try (FileChannel ch = created.channel()) {
                ByteBuffer buf = ByteBuffer.wrap(data);
                while (buf.hasRemaining()) ch.write(buf);
                ch.force(true);
            }
            if (existing != null) {
                UserPrincipal owner = Files.getOwner(target, LinkOption.NOFOLLOW_LINKS);
                if (!owner.equals(Files.getOwner(temp, LinkOption.NOFOLLOW_LINKS))) {
                    throw new IOException(target + ": a file of " + owner.getName() + " is there: not replaced");
                }
                Set<PosixFilePermission> perms = posix(target).readAttributes().permissions();
                posix(temp).setPermissions(perms);
            }
            // rename(2) replaces the directory entry itself: it never writes through a link at the target
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            done = true;
        } finally {
            if (!done) Files.deleteIfExists(temp); // deletes a link itself, never its target
        }
    }

    private static PosixFileAttributeView posix(Path p) throws IOException {
        PosixFileAttributeView view = Files.getFileAttributeView(p, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
        if (view == null) throw new IOException(p + ": the file system has no POSIX permissions: not written");
        return view;
    }

    /** The target's file name, after checking the path's components. */
    private static Path checkedName(Path target) throws IOException {
        Path name = target.getFileName();
        if (name == null) throw new IOException(target + ": names no file");
        for (Path part : target) {
            String p = part.toString();
            if (p.equals(".") || p.equals("..")) {
                throw new IOException(target + ": a path with '" + p + "' in it is refused (name the file's directory plainly)");
            }
        }
        return name;
    }

    private record Temp(Path path, FileChannel channel) {
    }

    /**
     * A new owner-only file in {@code dir}, created exclusively (O_EXCL, O_NOFOLLOW): an existing
     * entry at a name, a planted link included, is skipped for another name. Open for writing.
     */
    private static Temp createTemp(Path dir, String targetName, Supplier<String> tempNames, Path target) throws IOException {
        for (int i = 0; i < TEMP_NAME_TRIES; i++) {
            Path temp = dir.resolve("." + targetName + "." + tempNames.get() + ".tmp");
            try {
                return new Temp(temp, FileChannel.open(temp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                        PosixFilePermissions.asFileAttribute(OWNER_ONLY)));
            } catch (FileAlreadyExistsException taken) {
                // a collision, or something planted: try another name
            } catch (UnsupportedOperationException noPosix) {
                throw new IOException(target + ": the file system has no owner-only permissions: not written");
            }
        }
        throw new IOException(target + ": no free temporary name in " + dir + " after " + TEMP_NAME_TRIES + " tries");
    }

    /** Made on the first write only: a SecureRandom costs milliseconds, and reading files needs none. */
    private static final class Names {
        static final SecureRandom RANDOM = new SecureRandom();
    }

    /** Unpredictable, so that names cannot be planted ahead (a planted one is skipped anyway, but only so often). */
    private static String randomTempName() {
        byte[] b = new byte[8];
        Names.RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    private static BasicFileAttributes attributesNoFollow(Path p) throws IOException {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** What a file that is not regular is, in words, from its mode where the platform tells it. */
    private static String kind(Path p, BasicFileAttributes attrs, boolean followed) {
        if (attrs.isDirectory()) return "a directory";
        if (attrs.isSymbolicLink()) return "a symbolic link";
        int mode;
        try {
            Object m = followed ? Files.getAttribute(p, "unix:mode") : Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            mode = (Integer) m;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return "not a regular file";
        }
        return switch (mode & 0170000) {
            case 0010000 -> "a FIFO (named pipe)";
            case 0020000 -> "a character device";
            case 0060000 -> "a block device";
            case 0140000 -> "a socket";
            default -> "not a regular file";
        };
    }
}
