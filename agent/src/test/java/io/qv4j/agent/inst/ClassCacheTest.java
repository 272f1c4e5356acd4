package io.qv4j.agent.inst;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The cache of rewritten classes: a hit gives back exactly what was kept, and an entry that is
 * damaged, of another key (new JDK, new agent build), not a plain file of this user, or writable
 * by others, is never used.
 */
class ClassCacheTest {

    private static final String TPE = HookTransformer.TPE;
    private static final String BUILD = "0123456789abcdef";

    private static byte[] original() throws Exception {
        return Bytecode.classBytes(TPE);
    }

    private static Path onlyEntry(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> all = s.toList();
            assertEquals(1, all.size(), all.toString());
            return all.get(0);
        }
    }

    @Test
    void aKeptRewriteComesBackWithItsNote(@TempDir Path dir) throws Exception {
        ClassCache cache = new ClassCache(dir, BUILD);
        byte[] rewritten = {1, 2, 3, 4, 5};
        assertNull(cache.get(TPE, original()));
        cache.put(TPE, original(), rewritten, "runWorker getTask");
        ClassCache.Entry e = cache.get(TPE, original());
        assertNotNull(e);
        assertArrayEquals(rewritten, e.bytes());
        assertEquals("runWorker getTask", e.note());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(onlyEntry(dir))));
    }

    @Test
    void aThreadWithAPendingInterruptKeepsAndFindsARewriteAndStillHasItsInterrupt(@TempDir Path dir) throws Exception {
        // a pool's idle worker that shutdown() interrupted may be the thread that loads a class
        // the hooks rewrite (JDK 17's ForkJoinPool$WorkQueue, from the worker's first wait): the
        // interrupt closed the cache's file channels, so the rewrite was never kept and each such
        // start ran ASM cold again
        ClassCache cache = new ClassCache(dir, BUILD);
        byte[] rewritten = {1, 2, 3};
        Thread.currentThread().interrupt();
        try {
            cache.put(TPE, original(), rewritten, "runWorker");
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is the application's: kept");
            ClassCache.Entry e = cache.get(TPE, original());
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is the application's: kept");
            assertNotNull(e, "kept and found on an interrupted thread");
            assertArrayEquals(rewritten, e.bytes());
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void theTransformerUsesAKeptRewriteAndKeepsANewOne(@TempDir Path dir) throws Exception {
        byte[] rewritten = new HookTransformer("java/util/concurrent/QvHooks", new ClassCache(dir, BUILD), HookTransformer.TARGETS).instrument(TPE, original());
        HookTransformer second = new HookTransformer("java/util/concurrent/QvHooks", new ClassCache(dir, BUILD), HookTransformer.TARGETS);
        assertArrayEquals(rewritten, second.instrument(TPE, original()));
        assertEquals("from the cache", second.source());
        assertEquals(Set.of("<init>", "runWorker", "getTask", "processWorkerExit"),
                Set.of(second.done().get("java.util.concurrent.ThreadPoolExecutor").split(" ")));
    }

    @Test
    void otherOriginalBytesAsAfterAJdkUpdateMiss(@TempDir Path dir) throws Exception {
        ClassCache cache = new ClassCache(dir, BUILD);
        cache.put(TPE, original(), new byte[] {1}, "");
        byte[] updated = original().clone();
        updated[updated.length - 1] ^= 1;
        assertNull(cache.get(TPE, updated));
    }

    @Test
    void anotherAgentBuildMisses(@TempDir Path dir) throws Exception {
        new ClassCache(dir, BUILD).put(TPE, original(), new byte[] {1}, "");
        assertNull(new ClassCache(dir, "fedcba9876543210").get(TPE, original()));
    }

    @Test
    void aTamperedEntryIsIgnored(@TempDir Path dir) throws Exception {
        ClassCache cache = new ClassCache(dir, BUILD);
        cache.put(TPE, original(), new byte[100], "");
        Path entry = onlyEntry(dir);
        byte[] b = Files.readAllBytes(entry);
        for (int i = 0; i < b.length; i++) {
            byte[] changed = b.clone();
            changed[i] ^= 0x10;
            Files.write(entry, changed);
            assertNull(cache.get(TPE, original()), "byte " + i + " changed");
        }
    }

    @Test
    void aTruncatedOrEmptyEntryIsIgnored(@TempDir Path dir) throws Exception {
        ClassCache cache = new ClassCache(dir, BUILD);
        cache.put(TPE, original(), new byte[100], "");
        Path entry = onlyEntry(dir);
        byte[] b = Files.readAllBytes(entry);
        for (int n = 0; n < b.length; n += 7) {
            Files.write(entry, Arrays.copyOf(b, n));
            assertNull(cache.get(TPE, original()), n + " bytes");
        }
    }

    @Test
    void anEntryCopiedUnderAnotherKeysNameIsIgnored(@TempDir Path dir) throws Exception {
        ClassCache cache = new ClassCache(dir, BUILD);
        cache.put(TPE, original(), new byte[] {1}, "");
        Path entry = onlyEntry(dir);
        byte[] other = original().clone();
        other[other.length - 1] ^= 1;
        cache.put(TPE, other, new byte[] {2}, "");
        Path otherEntry;
        try (Stream<Path> s = Files.list(dir)) {
            otherEntry = s.filter(p -> !p.equals(entry)).findFirst().orElseThrow();
        }
        Files.copy(entry, otherEntry, StandardCopyOption.REPLACE_EXISTING);
        assertNull(cache.get(TPE, other));
    }

    @Test
    void aLinkOrAnEntryOthersMayWriteIsNotRead(@TempDir Path dir) throws Exception {
        ClassCache cache = new ClassCache(dir, BUILD);
        cache.put(TPE, original(), new byte[] {1}, "");
        Path entry = onlyEntry(dir);
        Files.setPosixFilePermissions(entry, PosixFilePermissions.fromString("rw-rw-rw-"));
        assertNull(cache.get(TPE, original()), "world-writable");

        Files.setPosixFilePermissions(entry, PosixFilePermissions.fromString("rw-------"));
        Path real = Files.move(entry, dir.resolve("elsewhere"));
        Files.createSymbolicLink(entry, real);
        assertNull(cache.get(TPE, original()), "a link");
    }

    @Test
    void anotherUsersEntryIsNotRead(@TempDir Path dir) throws Exception {
        ClassCache cache = new ClassCache(dir, BUILD);
        cache.put(TPE, original(), new byte[] {1}, "");
        Path entry = onlyEntry(dir);
        UserPrincipal other;
        try {
            other = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
            Files.setOwner(entry, other);
        } catch (Exception notRoot) {
            assumeTrue(false, "changing a file's owner needs root: " + notRoot);
            return;
        }
        assertNull(cache.get(TPE, original()));
    }

    @Test
    void noMoreThanKeepEntriesStay(@TempDir Path dir) throws Exception {
        ClassCache cache = new ClassCache(dir, BUILD);
        byte[] o = original();
        for (int i = 0; i < ClassCache.KEEP + 5; i++) {
            byte[] variant = o.clone();
            variant[variant.length - 1] = (byte) i;
            cache.put(TPE, variant, new byte[] {1}, "");
        }
        try (Stream<Path> s = Files.list(dir)) {
            assertTrue(s.count() <= ClassCache.KEEP);
        }
    }

    @Test
    void withoutABuildIdNothingIsKept() throws Exception {
        ClassCache.NONE.put(TPE, original(), new byte[] {1}, "");
        assertNull(ClassCache.NONE.get(TPE, original()));
    }
}
