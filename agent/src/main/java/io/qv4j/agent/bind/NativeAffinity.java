package io.qv4j.agent.bind;

import io.qv4j.agent.log.Log;
import io.qv4j.topology.CpuSet;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.BitSet;
import java.util.Locale;
import java.util.zip.CRC32;

/**
 * Binding through the agent's own JNI library ({@code agent/src/main/c/qv_affinity.c}), built
 * with the jar where a C compiler is present. It exists for start-up cost: JNA plus OpenHFT take
 * 130–170 ms to load in a cold JVM (measured), the library about one millisecond. Where it is
 * missing or cannot load, {@link AffinityBinder} (OpenHFT) is used instead.
 *
 * <p>The library is copied out of the jar into a per-user cache directory with owner-only
 * permissions ({@code $XDG_CACHE_HOME/qv4j} or {@code ~/.cache/qv4j}), under a name holding its
 * checksum, so a run never loads a file another user could have written or an older build.
 */
public final class NativeAffinity implements Binder {

    static final String RESOURCE = "/io/qv4j/agent/bind/native/" + System.getProperty("os.arch", "?") + "/libqv4j.so";

    /** Words in a mask read back from the kernel: 8192 PUs; the kernel rejects a smaller buffer on bigger machines. */
    private static final int READ_WORDS = 128;

    private NativeAffinity() {
    }

    /** The binder, or null (with the reason logged at debug level) when the library is not usable here. */
    public static Binder load() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) return null;
        try (InputStream in = NativeAffinity.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                Log.debug("no native binding library for " + System.getProperty("os.arch") + " in the jar");
                return null;
            }
            byte[] bytes = in.readAllBytes();
            System.load(cached(bytes).toString());
            gettid0(); // fails now, not on a worker, if the symbols are wrong
            return new NativeAffinity();
        } catch (Throwable t) {
            Log.debug("native binding library unusable (" + t + ")");
            return null;
        }
    }

    private static Path cached(byte[] bytes) throws IOException {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path dir = (xdg != null && !xdg.isEmpty() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache")).resolve("qv4j");
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        checkOwnerOnly(dir);
        Path lib = dir.resolve("libqv4j-" + Long.toHexString(crc.getValue()) + "-" + bytes.length + ".so");
        if (Files.isRegularFile(lib, LinkOption.NOFOLLOW_LINKS) && Files.size(lib) == bytes.length) {
            checkOwnerOnly(lib);
            return lib;
        }
        Path tmp = Files.createTempFile(dir, "libqv4j", ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.write(tmp, bytes);
        Files.move(tmp, lib, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return lib;
    }

    /** Refuses a directory or file that is a link, not ours, or writable by others. */
    private static void checkOwnerOnly(Path p) throws IOException {
        if (Files.isSymbolicLink(p)) throw new IOException(p + " is a symbolic link");
        String owner = Files.getOwner(p, LinkOption.NOFOLLOW_LINKS).getName();
        if (!owner.equals(System.getProperty("user.name"))) throw new IOException(p + " belongs to " + owner);
        String perms = PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
        if (perms.charAt(4) == 'w' || perms.charAt(7) == 'w') throw new IOException(p + " is writable by others (" + perms + ")");
    }

    @Override
    public boolean bind(CpuSet cpus) {
        int rc = setAffinity(0, cpus);
        if (rc != 0) Log.once("bindfail", "binding a thread to " + cpus + " failed (errno " + rc + "); such threads run unpinned");
        return rc == 0;
    }

    @Override
    public String describe() {
        return "native";
    }

    @Override
    public long currentTid() {
        return gettid0();
    }

    /** Binds thread {@code tid} (0: the calling thread); returns 0 or the errno. */
    public static int setAffinity(int tid, CpuSet cpus) {
        long[] words = cpus.toBitSet().toLongArray();
        return setAffinity0(tid, words.length == 0 ? new long[1] : words);
    }

    /** The kernel's mask of thread {@code tid} (0: the calling thread), or null on error. */
    public static CpuSet affinity(int tid) {
        long[] words = new long[READ_WORDS];
        return getAffinity0(tid, words) == 0 ? CpuSet.of(BitSet.valueOf(words)) : null;
    }

    private static native int setAffinity0(int tid, long[] mask);

    private static native int getAffinity0(int tid, long[] mask);

    private static native int gettid0();
}
