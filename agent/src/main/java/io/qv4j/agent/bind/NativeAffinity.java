package io.qv4j.agent.bind;

import io.qv4j.agent.io.UserCache;
import io.qv4j.agent.log.Log;
import io.qv4j.topology.CpuSet;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
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
 * <p>The library is copied out of the jar into the per-user cache ({@link UserCache}) under a name
 * holding its checksum, and compared with the jar's bytes before each load, so a run never loads a
 * file another user could have written, a damaged one, or an older build.
 */
public final class NativeAffinity implements Binder {

    static final String RESOURCE = "/io/qv4j/agent/bind/native/" + System.getProperty("os.arch", "?") + "/libqv4j.so";

    /** Words in a mask read back from the kernel: 8192 PUs; the kernel rejects a smaller buffer on bigger machines. */
    private static final int READ_WORDS = 128;

    private NativeAffinity() {
    }

    /** Set once the library is loaded: a second caller (CPUID after the binder) needs no second check of the file. */
    private static volatile NativeAffinity loaded;

    /**
     * The binder, or null (with the reason logged at debug level) when the library is not usable
     * here. Synchronized: the main thread (for the hook class) and the start-up thread (for the
     * binder) may both ask, and the second waits for the first instead of checking the file again.
     */
    public static synchronized Binder load() {
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
            open(lib.toString());
            gettid0(); // fails now, not on a worker, if the symbols are wrong
            return loaded = new NativeAffinity();
        } catch (IllegalCallerException denied) {
            // JDK 24+ under --illegal-native-access=deny, where the library could not come in
            // through java.base; JNA is refused the same way, so say it once here.
            Log.once("nobind", "native access denied (" + denied.getMessage()
                    + "): start the JVM with --enable-native-access=ALL-UNNAMED to pin threads; running unpinned");
            return null;
        } catch (Throwable t) {
            Log.debug("native binding library unusable (" + t + ")");
            return null;
        }
    }

    /**
     * How the library comes into the JVM where the JDK checks native access (JDK 24 and later):
     * through a class of {@code java.base}, which has it ({@code inst.NativeDoor}).
     */
    public interface Door {
        /**
         * Loads the library at {@code path} and binds the native methods of {@code natives} to it.
         *
         * @throws Closed when this JVM lets nothing in this way: nothing was loaded
         */
        void open(String path, Class<?> natives) throws Throwable;

        /** The door could not be made here; the library has not been loaded. */
        final class Closed extends Exception {
            private static final long serialVersionUID = 1L;

            public Closed(String why, Throwable cause) {
                super(why, cause);
            }
        }
    }

    private static Door door;

    /** From now on the library comes in through {@code d}; set before the first {@link #load}. */
    public static synchronized void loadThrough(Door d) {
        door = d;
    }

    /**
     * Loads the library: through the door where there is one, else (JDK 17 to 23, the command
     * line, a closed door) as the application would, from this class, its methods linked by name.
     */
    private static void open(String path) throws Throwable {
        if (door != null) {
            try {
                door.open(path, NativeAffinity.class);
                return;
            } catch (Door.Closed closed) {
                Log.info("the JNI library cannot come in through java.base here (" + closed.getMessage()
                        + "): loading it from the agent's own classes, which the JVM may warn about (--enable-native-access=ALL-UNNAMED silences it)");
            }
        }
        System.load(path);
    }

    /**
     * The library's file in the per-user cache, written there unless a file already holds exactly
     * these bytes: the name says which build it is, the comparison makes sure nobody changed it.
     * Null when there is no usable cache directory.
     */
    private static Path cached(byte[] bytes) {
        Path dir = UserCache.dir();
        if (dir == null) {
            Log.debug("no usable cache directory for the native binding library");
            return null;
        }
        CRC32 crc = new CRC32();
        crc.update(bytes);
        String name = "libqv4j-" + Long.toHexString(crc.getValue()) + "-" + bytes.length + ".so";
        Path lib = dir.resolve(name);
        if (Arrays.equals(bytes, UserCache.read(lib, bytes.length))) return lib;
        try {
            UserCache.write(dir, name, bytes);
            return lib;
        } catch (IOException | RuntimeException e) {
            Log.debug("cannot cache the native binding library in " + dir + " (" + e + ")");
            return null;
        }
    }

    @Override
    public boolean bind(CpuSet cpus) {
        long[] words = cpus.toBitSet().toLongArray();
        int rc = setAffinity0(0, words.length == 0 ? new long[1] : words, true);
        if (rc != 0) Log.once("bindfail", "binding a thread to " + cpus + " failed (errno " + rc + "); such threads run unpinned");
        return rc == 0;
    }

    @Override
    public boolean bindThread(long tid, CpuSet cpus) {
        return tid > 0 && tid <= Integer.MAX_VALUE && setAffinity((int) tid, cpus) == 0;
    }

    @Override
    public int bindMemory(io.qv4j.api.Memory memory, java.util.BitSet nodes) {
        int mode = switch (memory) {
            case LOCAL -> 0; // MPOL_DEFAULT
            case BIND -> 2; // MPOL_BIND
            case INTERLEAVE -> 3; // MPOL_INTERLEAVE
        };
        long[] words = nodes.toLongArray();
        return setMemoryPolicy0(mode, words.length == 0 ? new long[1] : words);
    }

    /** The calling thread's memory policy: its mode (0 default, 2 bind, 3 interleave, ...) and its nodes; for tests and tools. */
    public static int memoryPolicy(java.util.BitSet nodes) {
        long[] words = new long[16]; // 1,024 nodes: the kernel refuses a mask shorter than its node count
        int mode = getMemoryPolicy0(words);
        nodes.clear();
        nodes.or(java.util.BitSet.valueOf(words));
        return mode;
    }

    @Override
    public String describe() {
        return "native";
    }

    @Override
    public long currentTid() {
        return gettid0();
    }

    @Override
    public int currentCpu() {
        int cpu = currentCpu0();
        return cpu < 0 ? -1 : cpu;
    }

    /**
     * Binds thread {@code tid} (0: the calling thread); returns 0 or the errno. Not a placement:
     * the thread answers {@code availableProcessors()} as the JVM does for its new mask.
     */
    public static int setAffinity(int tid, CpuSet cpus) {
        long[] words = cpus.toBitSet().toLongArray();
        return setAffinity0(tid, words.length == 0 ? new long[1] : words, false);
    }

    /**
     * Set once {@link #answerProcessors} succeeded: the threads this binder places answer the JVM
     * scope's processor count.
     */
    private static volatile boolean answering;

    /**
     * From now on {@code Runtime.availableProcessors()} and the management bean's processor count
     * answer, on a thread this binder placed and whose mask is still the one it gave, what a thread
     * with the JVM scope's mask answers ({@link #jvmScope}); every other thread gets the JVM's own
     * answer. The library binds both natives to its own function and calls the JVM's from there.
     * From now on it also keeps each starting thread's mask ({@link #keptStartMask}).
     * Once per JVM, from the agent's start, after {@link #watchThreads} (they share one JVMTI
     * environment).
     *
     * @return null when answering, else why not
     */
    public static String answerProcessors() {
        if (loaded == null) return "the native library is not loaded";
        Class<?> management;
        try {
            // bound already where java.management was used before the agent (another agent, an attach)
            management = Class.forName("sun.management.VMManagementImpl", false, null);
        } catch (ClassNotFoundException | LinkageError absent) {
            management = null; // a runtime image without java.management
        }
        int rc = answerProcessors0(Runtime.getRuntime(), management);
        answering = rc == 0;
        return switch (rc) {
            case 0 -> null;
            case -1 -> "already answered in this JVM";
            case -3 -> "the JVM gives no JVMTI environment";
            case -4 -> "the JVM did not bind Runtime.availableProcessors again through JVMTI";
            default -> "JVMTI error " + rc;
        };
    }

    /** Known for a thread that started after {@link #answerProcessors}, which turns the start marks on. */
    @Override
    public Boolean keptStartMask() {
        int kept = startMaskKept0();
        return kept < 0 ? null : kept == 1;
    }

    /** How long HotSpot (JDK 17 to 21, in a container) keeps its processor count, plus a margin. */
    static final long CONTAINER_CACHE_MILLIS = 25;

    /**
     * The JVM scope is {@code scope}: what the JVM answers on a thread whose mask it is becomes the
     * answer of the threads placed from now on. Asked of the JVM itself (it caps by a CPU quota, or
     * answers {@code -XX:ActiveProcessorCount}), on the calling thread bound to {@code scope} for
     * the call and then given its own mask back. Returns the count, 0 when not answering.
     */
    @Override
    public int jvmScope(CpuSet scope) {
        if (!answering) return 0;
        CpuSet mine = affinity(0);
        if (mine == null) return 0;
        boolean move = !mine.equals(scope);
        if (move && setAffinity(0, scope) != 0) return 0;
        int n = jvmProcessors0(Runtime.getRuntime());
        if (n > scope.cardinality()) {
            // JDK 17 in a container keeps its answer for 20 ms: one given for a larger mask just
            // before (the process was narrowed to this scope a moment ago) is asked again once it
            // is stale. A count above the PUs stays where -XX:ActiveProcessorCount set it.
            try {
                Thread.sleep(CONTAINER_CACHE_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            n = jvmProcessors0(Runtime.getRuntime());
        }
        if (move) setAffinity(0, mine);
        if (n <= 0) return 0;
        scopeProcessors0(n);
        return n;
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

    /** Whether the library is loaded in this JVM. */
    public static boolean isLoaded() {
        return loaded != null;
    }

    /**
     * A descriptor to ask {@link #lockHolder} about the plain file at {@code path} (never through a
     * link); its device and inode go into {@code devIno}. Returns the descriptor, or -errno (-22: not
     * a plain file; -38: the library is not loaded). The caller closes it only through
     * {@link #retireLockProbe}: closing any descriptor of a file drops every POSIX lock this
     * process holds on the file.
     */
    public static int lockProbe(java.nio.file.Path path, long[] devIno) {
        if (loaded == null) return -38;
        return lockProbe0(path.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8), devIno);
    }

    /**
     * Who holds a lock on the file of {@code fd} (a {@link #lockProbe} descriptor), this process
     * included: its pid, 0 for nobody, -1 for a holder without a pid (an open file description's
     * lock); null where the kernel cannot say (before Linux 3.15) or the library is not loaded.
     */
    public static Integer lockHolder(int fd) {
        if (loaded == null) return null;
        int[] pid = new int[1];
        return lockHolder0(fd, pid) == 0 ? pid[0] : null;
    }

    /**
     * Closes the {@link #lockProbe} descriptor {@code fd} if its file was deleted (linked in no
     * directory): then no one going by a path sees a lock on it, and the locks of this process
     * that the close drops there guard nothing. True when closed.
     */
    public static boolean retireLockProbe(int fd) {
        return loaded != null && retireLockProbe0(fd) == 0;
    }

    /**
     * Defines {@code bytes} as class {@code internalName} in the boot loader, where a package of
     * {@code java.base} takes it without being opened to the agent; null when the library is not loaded.
     *
     * @throws LinkageError as the JVM refuses the class
     */
    public static Class<?> defineBootClass(String internalName, byte[] bytes) {
        return loaded == null ? null : defineBootClass0(internalName, bytes);
    }

    /**
     * The {@link Runnable} thread {@code t} was made with, whatever the field's access:
     * {@code Thread.target}, or {@code Thread.holder.task} where {@code inHolder} (JDK 19 and
     * later); null when there is none or the library is not loaded.
     */
    public static Object threadTask(Thread t, boolean inHolder) {
        return loaded == null || t == null ? null : threadTask0(t, inHolder);
    }

    /**
     * The calling thread's innermost frames through JVMTI, up to the arrays' length (64 at most),
     * this method's own first: method IDs and bytecode indexes, for {@link #frame}. Returns how
     * many; -1 when the library is not loaded or the JVM refuses.
     */
    public static int frames(long[] methods, long[] locations) {
        return loaded == null ? -1 : frames0(methods, locations);
    }

    /** Frame {@code method} at {@code location} of {@link #frames} as a stack trace gives it; null where it cannot be told. */
    public static StackTraceElement frame(long method, long location) {
        return loaded == null ? null : frame0(method, location);
    }

    /**
     * Sets the static object field {@code name} of type {@code signature} of {@code c} to
     * {@code value}, as a volatile store, without reflection (whose first use spins method handles
     * on JDK 18 and later); false when the library is not loaded or {@code c} has no such field.
     */
    public static boolean setStaticField(Class<?> c, String name, String signature, Object value) {
        return loaded != null && setStaticField0(c, name, signature, value) == 0;
    }

    /**
     * From now on, every platform thread that starts calls the static {@code c.start(Object)}
     * with itself before its {@code run()}, and {@code c.end(Object)} after it, through JVMTI's
     * thread events: {@code java.lang.Thread} need not be redefined for it. Once per JVM.
     *
     * @return null when watching, else why not
     */
    public static String watchThreads(Class<?> c, String start, String end, String descriptor) {
        if (loaded == null) return "the native library is not loaded";
        int rc = watchThreads0(c, start, end, descriptor);
        return switch (rc) {
            case 0 -> null;
            case -1 -> "threads are already watched in this JVM";
            case -2 -> c.getName() + " lacks " + start + " or " + end + descriptor;
            case -3 -> "the JVM gives no JVMTI environment";
            default -> "JVMTI error " + rc;
        };
    }

    private static native int watchThreads0(Class<?> c, String start, String end, String descriptor);

    private static native Class<?> defineBootClass0(String internalName, byte[] bytes);

    private static native int setStaticField0(Class<?> c, String name, String signature, Object value);

    private static native Object threadTask0(Thread t, boolean inHolder);

    private static native int frames0(long[] methods, long[] locations);

    private static native StackTraceElement frame0(long method, long location);

    private static native int setAffinity0(int tid, long[] mask, boolean placed);

    private static native int answerProcessors0(Runtime runtime, Class<?> management);

    private static native void scopeProcessors0(int n);

    private static native int startMaskKept0();

    private static native int jvmProcessors0(Runtime runtime);

    private static native int cpuid0(int leaf, int subleaf, int[] regs);

    private static native int getAffinity0(int tid, long[] mask);

    private static native int gettid0();

    private static native int currentCpu0();

    private static native int setMemoryPolicy0(int mode, long[] nodes);

    private static native int getMemoryPolicy0(long[] nodes);

    private static native int lockProbe0(byte[] path, long[] devIno);

    private static native int lockHolder0(int fd, int[] pid);

    private static native int retireLockProbe0(int fd);
}
