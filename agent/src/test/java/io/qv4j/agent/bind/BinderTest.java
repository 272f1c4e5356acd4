package io.qv4j.agent.bind;

import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Both binders, checked against the kernel's view of the thread ({@code /proc/thread-self/status}). */
class BinderTest {

    static CpuSet kernelAffinity() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) return CpuSet.parse(line.substring(line.indexOf(':') + 1));
        }
        throw new AssertionError("no Cpus_allowed_list");
    }

    /** Runs {@code check} on a fresh thread, so a binding never leaks into the test runner. */
    static void onFreshThread(ThrowingRunnable check) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                check.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.start();
        t.join(30_000);
        if (failure.get() instanceof Exception e) throw e;
        if (failure.get() instanceof Error e) throw e;
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void nativeLibraryBindsTheCallingThreadAsTheKernelSees() throws Exception {
        assumeTrue(NativeAffinity.class.getResource(NativeAffinity.RESOURCE) != null, "built without a C compiler");
        Binder b = NativeAffinity.load();
        assertNotNull(b, "the library is in the jar, so it must load");
        assertEquals("native", b.describe());
        onFreshThread(() -> {
            CpuSet before = kernelAffinity();
            assertTrue(before.contains(b.currentCpu()), "it runs on a PU of its mask: " + b.currentCpu());
            CpuSet one = CpuSet.of(before.last());
            assertTrue(b.bind(one));
            assertEquals(one, kernelAffinity());
            assertEquals(one, NativeAffinity.affinity(0));
            assertEquals(before.last(), b.currentCpu(), "and on that PU once bound to it alone");
            assertEquals(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString(),
                    String.valueOf(b.currentTid()));
        });
    }

    /** {@code memory=}: the policy the library sets is the one the kernel gives back (get_mempolicy), on the calling thread only. */
    @Test
    void nativeLibrarySetsTheCallingThreadsMemoryPolicyAsTheKernelReadsIt() throws Exception {
        assumeTrue(NativeAffinity.class.getResource(NativeAffinity.RESOURCE) != null, "built without a C compiler");
        Path hasMemory = Path.of("/sys/devices/system/node/has_memory");
        assumeTrue(Files.isReadable(hasMemory), "a kernel with NUMA");
        CpuSet nodes = CpuSet.parse(Files.readString(hasMemory).strip());
        Binder b = NativeAffinity.load();
        assertNotNull(b);
        java.util.BitSet seen = new java.util.BitSet();
        onFreshThread(() -> {
            CpuSet one = CpuSet.of(nodes.first());
            assertEquals(0, b.bindMemory(io.qv4j.api.Memory.BIND, one.toBitSet()));
            assertEquals(2, NativeAffinity.memoryPolicy(seen), "MPOL_BIND");
            assertEquals(one.toBitSet(), seen);
            assertEquals(0, b.bindMemory(io.qv4j.api.Memory.INTERLEAVE, nodes.toBitSet()));
            assertEquals(3, NativeAffinity.memoryPolicy(seen), "MPOL_INTERLEAVE");
            assertEquals(nodes.toBitSet(), seen);
            assertEquals(0, b.bindMemory(io.qv4j.api.Memory.LOCAL, new java.util.BitSet()));
            assertEquals(0, NativeAffinity.memoryPolicy(seen), "MPOL_DEFAULT");
        });
        assertEquals(0, NativeAffinity.memoryPolicy(seen), "another thread's policy is untouched");
        assertEquals(22, b.bindMemory(io.qv4j.api.Memory.BIND, new java.util.BitSet()), "no node: EINVAL");
    }

    @Test
    void nativeLibraryRefusesAMaskWithNoUsablePu() throws Exception {
        assumeTrue(NativeAffinity.class.getResource(NativeAffinity.RESOURCE) != null, "built without a C compiler");
        assertNotNull(NativeAffinity.load());
        onFreshThread(() -> {
            CpuSet before = kernelAffinity();
            assertEquals(22, NativeAffinity.setAffinity(0, CpuSet.of(8000)), "EINVAL for a PU that does not exist");
            assertEquals(before, kernelAffinity(), "binding unchanged");
        });
    }

    /** A class whose private field only JNI reads. */
    /** A static volatile field as the hook class's handlers are. */
    static volatile Runnable handler;

    @Test
    void nativeLibrarySetsAStaticFieldAndSaysWhenThereIsNone() {
        assumeTrue(NativeAffinity.class.getResource(NativeAffinity.RESOURCE) != null, "built without a C compiler");
        assertNotNull(NativeAffinity.load());
        Runnable r = new Thread();
        assertTrue(NativeAffinity.setStaticField(BinderTest.class, "handler", "Ljava/lang/Runnable;", r));
        assertSame(r, handler);
        assertTrue(NativeAffinity.setStaticField(BinderTest.class, "handler", "Ljava/lang/Runnable;", null));
        assertNull(handler);
        assertFalse(NativeAffinity.setStaticField(BinderTest.class, "absent", "Ljava/lang/Runnable;", r));
        assertFalse(NativeAffinity.setStaticField(BinderTest.class, "handler", "Ljava/lang/Object;", r), "another type is another field");
    }

    @Test
    void nativeLibraryReadsAThreadsTaskWhateverTheThreadsClassAndNullWhereItHasNone() {
        assumeTrue(NativeAffinity.class.getResource(NativeAffinity.RESOURCE) != null, "built without a C compiler");
        assertNotNull(NativeAffinity.load());
        boolean inHolder = Runtime.version().feature() >= 19;
        Runnable task = () -> { };
        assertSame(task, NativeAffinity.threadTask(new Thread(task), inHolder));
        assertSame(task, NativeAffinity.threadTask(new Thread(task) { }, inHolder), "a subclass of Thread");
        assertSame(task, NativeAffinity.threadTask(new Thread(task), inHolder), "asked again: the kept field IDs");
        assertNull(NativeAffinity.threadTask(new Thread(), inHolder));
        assertNull(NativeAffinity.threadTask(null, inHolder));
    }

    /** The hook class of the test below: what JVMTI's thread events call, for threads it names. */
    static final class Watcher {
        static final List<String> SEEN = new CopyOnWriteArrayList<>();

        static void started(Object t) {
            record("start", t);
            if (((Thread) t).getName().equals("watched-throws")) throw new IllegalStateException("a hook that throws");
        }

        static void ended(Object t) {
            record("end", t);
        }

        private static void record(String event, Object t) {
            String name = ((Thread) t).getName();
            if (name.startsWith("watched-")) SEEN.add(event + " " + name + (t == Thread.currentThread() ? " on itself" : " elsewhere"));
        }
    }

    /** Overrides run() without calling super.run(): a hook in Thread.run() would not see it. */
    static final class OwnRun extends Thread {
        final AtomicBoolean ran = new AtomicBoolean();

        OwnRun(String name) {
            super(name);
        }

        @Override
        public void run() {
            ran.set(true);
        }
    }

    @Test
    void nativeLibraryCallsTheWatcherOnEveryPlatformThreadThatStartsAndEndsOnTheThreadItselfOncePerJvm() throws Exception {
        assumeTrue(NativeAffinity.class.getResource(NativeAffinity.RESOURCE) != null, "built without a C compiler");
        assertNotNull(NativeAffinity.load());
        String desc = "(Ljava/lang/Object;)V";
        assertEquals(Watcher.class.getName() + " lacks absent or ended" + desc, NativeAffinity.watchThreads(Watcher.class, "absent", "ended", desc));
        assertNull(NativeAffinity.watchThreads(Watcher.class, "started", "ended", desc));
        assertEquals("threads are already watched in this JVM", NativeAffinity.watchThreads(Watcher.class, "started", "ended", desc));
        OwnRun own = new OwnRun("watched-own");
        OwnRun throwing = new OwnRun("watched-throws");
        Thread dies = new Thread(() -> {
            throw new IllegalStateException("the thread's own failure");
        }, "watched-dies");
        dies.setUncaughtExceptionHandler((t, e) -> { });
        for (Thread t : List.of(own, throwing, dies)) {
            t.start();
            t.join();
        }
        assertTrue(own.ran.get() && throwing.ran.get(), "a hook that throws does not stop the thread");
        assertEquals(List.of("start watched-own on itself", "end watched-own on itself", "start watched-throws on itself", "end watched-throws on itself",
                "start watched-dies on itself", "end watched-dies on itself"), Watcher.SEEN, "a thread that dies of an exception ends too");
    }

    /**
     * Defined in the boot loader by the test below, and named nowhere else: once the boot loader
     * has it, the application loader's delegation would find that copy instead of its own.
     */
    static final class BootDefined {
    }

    @Test
    void nativeLibraryDefinesAClassInTheBootLoaderOnceAndThrowsTheJvmsErrorForASecond() throws Exception {
        assumeTrue(NativeAffinity.class.getResource(NativeAffinity.RESOURCE) != null, "built without a C compiler");
        assertNotNull(NativeAffinity.load());
        String binary = BinderTest.class.getName() + "$BootDefined";
        byte[] bytes;
        try (var in = BinderTest.class.getResourceAsStream("BinderTest$BootDefined.class")) {
            bytes = in.readAllBytes();
        }
        Class<?> c = NativeAffinity.defineBootClass(binary.replace('.', '/'), bytes);
        assertEquals(binary, c.getName());
        assertNull(c.getClassLoader(), "the boot loader's");
        assertSame(c, Class.forName(binary, false, null));
        assertThrows(LinkageError.class, () -> NativeAffinity.defineBootClass(binary.replace('.', '/'), bytes));
    }

    @Test
    void openHftFallbackBindsTheCallingThreadAsTheKernelSees() throws Exception {
        Binder b = AffinityBinder.create();
        assumeTrue(b != Binder.NONE, "OpenHFT has no native binding here");
        onFreshThread(() -> {
            CpuSet one = CpuSet.of(kernelAffinity().first());
            assertTrue(b.bind(one));
            assertEquals(one, kernelAffinity());
            assertEquals(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString(), String.valueOf(b.currentTid()));
        });
    }
}
