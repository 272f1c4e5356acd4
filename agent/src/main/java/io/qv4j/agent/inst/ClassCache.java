package io.qv4j.agent.inst;

import io.qv4j.agent.io.UserCache;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.zip.Adler32;
import java.util.zip.CRC32;

/**
 * Rewritten class bytes kept between runs, so that a later start skips ASM altogether: loading
 * and running it cold is most of what the hooks cost at start-up. A rewrite is a pure function of
 * the original class bytes and the agent's build, so an entry is found by exactly those: its name
 * holds the build id (a digest of the agent's classes, written into the jar when it is built),
 * the class, a CRC-32 and an Adler-32 of the original bytes and their length. A JDK update changes
 * the original bytes, a new agent build the id: either way the old entry is not found and the
 * class is rewritten.
 *
 * <p>An entry repeats its key and ends with a CRC-32 of everything before it; a file that is
 * truncated, changed, renamed or of another key is ignored (and rewritten). Entries live in the
 * per-user cache directory ({@link UserCache}: owner-only, never another user's, no links
 * followed). The checksums detect damage, not a forger with this user's rights, who could change
 * the application itself. At most {@link #KEEP} entries are kept; the oldest go first.
 */
final class ClassCache {

    static final int KEEP = 48;
    private static final int MAX_ENTRY = 8 << 20;
    private static final byte[] MAGIC = {'Q', 'V', 'C', '1'};
    private static final String SUFFIX = ".qvclass";

    /** What a hit gives back: the rewritten bytes and the note the rewrite made (the hooks inserted). */
    record Entry(byte[] bytes, String note) {
    }

    /** A cache that never holds anything: no build id (classes not from the jar) or no cache directory. */
    static final ClassCache NONE = new ClassCache(null, null);

    private final Path dir;
    private final String buildId;

    ClassCache(Path dir, String buildId) {
        this.dir = dir;
        this.buildId = buildId;
    }

    /** The cache for this agent build in the per-user directory, or {@link #NONE}. */
    static ClassCache open() {
        String id = UserCache.buildId();
        if (id == null) return NONE;
        Path dir = UserCache.dir();
        return dir == null ? NONE : new ClassCache(dir, id);
    }

    boolean enabled() {
        return dir != null;
    }

    /** The rewrite of {@code original} (class {@code internalName}) kept by an earlier run, or null. */
    Entry get(String internalName, byte[] original) {
        if (dir == null) return null;
        String key = key(internalName, original);
        boolean interrupted = Thread.interrupted(); // see put
        try {
            byte[] file = UserCache.read(dir.resolve(fileName(key)), MAX_ENTRY);
            return file == null ? null : decode(file, key);
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    /**
     * Keeps a rewrite for later runs; a failure only means the next run rewrites again. A class
     * loads on whatever thread first needs it, an application's, whose interrupt would close the
     * file channels: so it is held off for the file work and given back. Seen: JDK 17 loads
     * {@code ForkJoinPool$WorkQueue} on a pool's idle worker that {@code shutdown()} interrupts,
     * and such starts ran ASM cold each time, the rewrite never kept.
     */
    void put(String internalName, byte[] original, byte[] rewritten, String note) {
        if (dir == null) return;
        String key = key(internalName, original);
        boolean interrupted = Thread.interrupted();
        try {
            UserCache.write(dir, fileName(key), encode(key, rewritten, note));
            UserCache.trim(dir, SUFFIX, KEEP);
        } catch (IOException | RuntimeException e) {
            // not kept: the next start rewrites
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    private String key(String internalName, byte[] original) {
        CRC32 a = new CRC32();
        a.update(original);
        // Adler-32, not CRC-32C: CRC32C builds its tables in the interpreter at first use
        Adler32 b = new Adler32();
        b.update(original);
        return buildId + "-" + internalName.replace('/', '.') + "-" + Long.toHexString(a.getValue()) + Long.toHexString(b.getValue())
                + "-" + original.length;
    }

    private static String fileName(String key) {
        return key + SUFFIX;
    }

    /** MAGIC, key, note, rewritten bytes, then a CRC-32 of all that. */
    static byte[] encode(String key, byte[] rewritten, String note) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(rewritten.length + 256);
        DataOutputStream out = new DataOutputStream(bytes);
        out.write(MAGIC);
        out.writeUTF(key);
        out.writeUTF(note);
        out.writeInt(rewritten.length);
        out.write(rewritten);
        CRC32 crc = new CRC32();
        crc.update(bytes.toByteArray());
        out.writeLong(crc.getValue());
        out.flush();
        return bytes.toByteArray();
    }

    /** The entry in {@code file} when it is whole, undamaged and for {@code key}; else null. */
    static Entry decode(byte[] file, String key) {
        try {
            ByteBuffer in = ByteBuffer.wrap(file);
            if (file.length < MAGIC.length + 8) return null;
            CRC32 crc = new CRC32();
            crc.update(file, 0, file.length - 8);
            if (crc.getValue() != ByteBuffer.wrap(file, file.length - 8, 8).getLong()) return null;
            for (byte m : MAGIC) {
                if (in.get() != m) return null;
            }
            if (!key.equals(utf(in))) return null;
            String note = utf(in);
            int n = in.getInt();
            if (n < 0 || n != in.remaining() - 8) return null;
            byte[] bytes = new byte[n];
            in.get(bytes);
            return new Entry(bytes, note);
        } catch (RuntimeException damaged) {
            return null;
        }
    }

    /** A string as DataOutputStream.writeUTF wrote it (the keys and notes are ASCII). */
    private static String utf(ByteBuffer in) {
        int n = in.getShort() & 0xffff;
        byte[] b = new byte[n];
        in.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
