package io.qv4j.agent.node;

import io.qv4j.agent.io.UserFiles;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;

/**
 * Where node-wide claims live and whether a directory may hold them. The default is
 * {@code $XDG_RUNTIME_DIR/qv4j} when that variable names a usable runtime directory (a tmpfs that
 * temporary-file cleaners leave alone), else {@code /tmp/qv4j-$USER}. JVMs of one user that run
 * with and without a login session (cron, batch jobs) get different defaults, so each also reads
 * the other default for others' claims ({@link #otherDefault}).
 */
public final class ClaimsDir {

    private ClaimsDir() {
    }

    /** {@code $XDG_RUNTIME_DIR/qv4j} when the variable is set and usable (see {@link #runtimeDir}), else {@link #tmpDefault}. */
    public static Path defaultDir(Map<String, String> env) {
        Path run = runtimeDir(env.get("XDG_RUNTIME_DIR"));
        return run != null ? run.resolve("qv4j") : tmpDefault();
    }

    /** The default a JVM with the other kind of environment picks: read (never taken) for others' claims. */
    public static Path otherDefault(Map<String, String> env) {
        Path run = runtimeDir(env.get("XDG_RUNTIME_DIR"));
        if (run != null) return tmpDefault();
        // a session's runtime directory is /run/user/UID under systemd-logind; seen here only if it is there
        try {
            Path guess = runtimeDir("/run/user/" + UserFiles.ownUid());
            return guess == null ? null : guess.resolve("qv4j");
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** {@code /tmp/qv4j-$USER}. */
    public static Path tmpDefault() {
        return Path.of("/tmp", "qv4j-" + UserFiles.fileName(System.getProperty("user.name", "unknown")));
    }

    /**
     * The runtime directory {@code value} names, or null unless it is an absolute path to a
     * directory (not a link) of this user that group and others cannot write: the XDG rules, checked
     * because the variable is input like any other.
     */
    static Path runtimeDir(String value) {
        if (value == null || value.isBlank()) return null;
        try {
            Path p = Path.of(value);
            if (!p.isAbsolute() || !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) return null;
            if ((Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS) != UserFiles.ownUid()) return null;
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
            if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) return null;
            return p;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Makes {@code dir} owner-only; one that another JVM made first is left to {@link #refusal}. */
    static void create(Path dir) throws IOException {
        Path parent = dir.toAbsolutePath().getParent();
        if (parent != null && !Files.isDirectory(parent)) Files.createDirectories(parent);
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        } catch (FileAlreadyExistsException e) {
            // another JVM made it first: checked like any existing directory
        }
    }

    /** Why {@code dir} must not be used, or null. Never follows a link. */
    static String refusal(Path dir) throws IOException {
        if (Files.isSymbolicLink(dir)) return "it is a symbolic link";
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) return "it is not a directory";
        int owner = (Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        int me = UserFiles.ownUid();
        if (owner != me) return "it belongs to uid " + owner + ", not to this user (uid " + me + ")";
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
        if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
            return "it is writable by group or others (" + PosixFilePermissions.toString(perms) + ")";
        }
        // java.io's listing: a DirectoryStream here is a secure one, whose classes (locks, a lambda)
        // cost a cold start milliseconds
        String[] names = dir.toFile().list();
        if (names == null) throw new IOException("cannot list " + dir);
        for (String name : names) {
            Path p = dir.resolve(name);
            if (Files.isSymbolicLink(p)) return "it holds a symbolic link " + name;
            if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) return "it holds " + name + ", not a plain file";
        }
        return null;
    }
}
