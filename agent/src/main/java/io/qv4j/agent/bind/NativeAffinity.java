package io.qv4j.agent.bind;

import io.qv4j.agent.log.Log;
import io.qv4j.topology.CpuSet;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Locale;
import java.util.zip.CRC32;

/**
 * Binding through the agent's own JNI library ({@code agent/src/main/c/qv_affinity.c}, prebuilt
 * for Linux amd64 and aarch64 by {@code scripts/build-native}; it needs no C library). It exists
 * for start-up cost: JNA plus OpenHFT take 130–170 ms to load in a cold JVM (measured), the
 * library about one millisecond. Where it is missing or cannot load, {@link AffinityBinder}
 * (OpenHFT) is used instead.
 *
 * <p>The library is copied out of the jar into a per-user cache directory with owner-only
 * permissions ({@code $XDG_CACHE_HOME/qv4j} or {@code ~/.cache/qv4j}; where that cannot be written,
 * {@code $java.io.tmpdir/qv4j-$USER}), under a name holding its checksum, and is compared with the
 * jar's bytes before each load, so a run never loads a file another user could have written, a
 * damaged one, or an older build. Links are never followed.
 */
public final class NativeAffinity implements Binder {

    static final String RESOURCE = "/io/qv4j/agent/bind/native/" + System.getProperty("os.arch", "?") + "/libqv4j.so";

    /** Words in a mask read back from the kernel: 8192 PUs; the kernel rejects a smaller buffer on bigger machines. */
    private static final int READ_WORDS = 128;

    private NativeAffinity() {
    }

    /** Set once the library is loaded: a second caller (CPUID after the binder) needs no second check of the file. */
    private static volatile NativeAffinity loaded;

    /** The binder, or null (with the reason logged at debug level) when the library is not usable here. */
    public static Binder load() {
        if (loaded != null) return loaded;
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) return null;
        byte[] bytes;
        try (InputStream in = NativeAffinity.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                Log.debug("no native binding library for " + System.getProperty("os.arch") + " in the jar");
                return null;
            }
            bytes = in.readAllBytes();
        } catch (IOException e) {
            Log.debug("cannot read the native binding library from the jar (" + e + ")");
            return null;
        }
        Path lib = cached(bytes);
        if (lib == null) return null;
        try {
            System.load(lib.toString());
            gettid0(); // fails now, not on a worker, if the symbols are wrong
            return loaded = new NativeAffinity();
        } catch (IllegalCallerException denied) {
            // JDK 24+ with --illegal-native-access=deny; JNA is refused the same way, so say it once here.
            Log.once("nobind", "native access denied (" + denied.getMessage()
                    + "): start the JVM with --enable-native-access=ALL-UNNAMED to pin threads; running unpinned");
            return null;
        } catch (Throwable t) {
            Log.debug("native binding library unusable (" + t + ")");
            return null;
        }
    }

    /** The library's file in the first usable cache directory (home cache, else temporary), or null. */
    private static Path cached(byte[] bytes) {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path home = (xdg != null && !xdg.isEmpty() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache")).resolve("qv4j");
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"), "qv4j-" + System.getProperty("user.name"));
        for (Path dir : new Path[] {home, tmp}) {
            try {
                return cached(dir, bytes);
            } catch (IOException | RuntimeException e) {
                Log.debug("cannot cache the native binding library in " + dir + " (" + e + ")");
            }
        }
        return null;
    }

    /**
     * Writes {@code bytes} into {@code dir} (created owner-only) unless a file there already holds
     * exactly them: the name says which build it is, the comparison makes sure nobody changed it.
     */
    private static Path cached(Path dir, byte[] bytes) throws IOException {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(dir.getParent());
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException raced) {
                // checked below like any existing directory
            }
        }
        checkOwnerOnly(dir);
        CRC32 crc = new CRC32();
        crc.update(bytes);
        Path lib = dir.resolve("libqv4j-" + Long.toHexString(crc.getValue()) + "-" + bytes.length + ".so");
        if (Files.isRegularFile(lib, LinkOption.NOFOLLOW_LINKS) && Files.size(lib) == bytes.length) {
            checkOwnerOnly(lib);
            if (Arrays.equals(bytes, read(lib))) return lib;
            Log.debug(lib + " differs from the jar's library: rewriting it");
        }
        Path tmp = Files.createTempFile(dir, "libqv4j", ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.write(tmp, bytes);
        Files.move(tmp, lib, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return lib;
    }

    private static byte[] read(Path file) throws IOException {
        try (SeekableByteChannel ch = Files.newByteChannel(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer b = ByteBuffer.allocate((int) ch.size());
            while (b.hasRemaining() && ch.read(b) >= 0) {
                // until full
            }
            return b.array();
        }
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

    /** {eax, ebx, ecx, edx} of CPUID on the calling thread's PU (x86 only; the library must be loaded). */
    static int[] cpuid(int leaf, int subleaf) {
        int[] regs = new int[4];
        int rc = cpuid0(leaf, subleaf, regs);
        if (rc != 0) throw new UnsupportedOperationException("CPUID not available (errno " + rc + ")");
        return regs;
    }

    private static native int setAffinity0(int tid, long[] mask);

    private static native int cpuid0(int leaf, int subleaf, int[] regs);

    private static native int getAffinity0(int tid, long[] mask);

    private static native int gettid0();
}
