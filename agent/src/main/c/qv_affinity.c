/*
 * The agent's native binding: sched_setaffinity/sched_getaffinity, set_mempolicy/get_mempolicy
 * and gettid through JNI, and
 * the x86 CPUID instruction for the caches of machines whose sysfs describes none.
 * Loading it costs about a millisecond, where JNA plus OpenHFT cost 130-170 ms in a cold JVM,
 * more than the agent's whole start-up budget. Masks are Java long[] words (BitSet.toLongArray
 * layout), which is the kernel's cpumask layout on 64-bit Linux.
 *
 * It also defines the agent's hook class in the boot loader and reads a private field (a
 * thread's task), both through JNI itself: without them the agent must open java.base's packages
 * with Instrumentation.redefineModule, which costs 10 ms of a cold JVM's CPU on JDK 17 and 25 ms
 * on JDK 25 (measured). And it tells the hook class of every platform thread that starts or ends,
 * through JVMTI's thread events: without them the agent must redefine java.lang.Thread, which
 * deoptimizes what depends on it and throws away the compiles in flight. And it answers the JVM's
 * processor count for the threads it pinned (the end of this file). And it asks the kernel who
 * holds a lock on a lock file, one file at a time, where reading /proc/locks would make every
 * process's file locking on the node wait for an RCU grace period (DESIGN.md §7).
 *
 * No C library: the system calls are made directly, so the same file loads on glibc and
 * musl systems alike and needs no shared library (built by scripts/build-native, -nostdlib).
 */
#include <jni.h>
#include <jvmti.h>

#if defined(__x86_64__)
#define NR_SCHED_SETAFFINITY 203
#define NR_SCHED_GETAFFINITY 204
#define NR_GETTID 186
#define NR_GETCPU 309
#define NR_SET_MEMPOLICY 238
#define NR_GET_MEMPOLICY 239
#define NR_OPENAT 257
#define NR_FCNTL 72
#define NR_FSTAT 5
#define NR_CLOSE 3
#define O_NOFOLLOW_ 0400000
#define STAT_MODE_AT 24 /* struct stat: st_dev, st_ino, st_nlink (8 bytes each), st_mode */
#define STAT_NLINK(st) (*(unsigned long *) ((char *) (st) + 16))

static long sys3(long n, long a, long b, long c) {
    long ret;
    __asm__ volatile ("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return ret;
}

static long sys5(long n, long a, long b, long c, long d, long e) {
    long ret;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    __asm__ volatile ("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8) : "rcx", "r11", "memory");
    return ret;
}
#elif defined(__aarch64__)
#define NR_SCHED_SETAFFINITY 122
#define NR_SCHED_GETAFFINITY 123
#define NR_GETTID 178
#define NR_GETCPU 168
#define NR_SET_MEMPOLICY 237
#define NR_GET_MEMPOLICY 236
#define NR_OPENAT 56
#define NR_FCNTL 25
#define NR_FSTAT 80
#define NR_CLOSE 57
#define O_NOFOLLOW_ 0100000
#define STAT_MODE_AT 16 /* the generic struct stat: st_dev, st_ino (8 bytes each), st_mode, st_nlink (4 bytes each) */
#define STAT_NLINK(st) (*(unsigned int *) ((char *) (st) + 20))

static long sys3(long n, long a, long b, long c) {
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    __asm__ volatile ("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
    return x0;
}

static long sys5(long n, long a, long b, long c, long d, long e) {
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    register long x4 __asm__("x4") = e;
    __asm__ volatile ("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4) : "memory");
    return x0;
}
#else
#error "only x86_64 and aarch64"
#endif

/* The kernel returns -errno on failure. */
static jint err(long ret) {
    return ret < 0 ? (jint) -ret : 0;
}

static void mark_placed(JNIEnv *env);

/*
 * Binds thread tid (0: the caller) to mask; returns 0 or errno. The array is used in place
 * (critical region: one short system call, no JNI calls inside), so no buffer is needed.
 * placed: the caller is a thread qv4j places, which from now on answers the JVM scope's processor
 * count while its mask stays the one it gets here (tid 0 only).
 */
JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_setAffinity0(JNIEnv *env, jclass cls, jint tid, jlongArray mask, jboolean placed) {
    jsize n = (*env)->GetArrayLength(env, mask);
    jlong *words = (*env)->GetPrimitiveArrayCritical(env, mask, 0);
    if (words == 0) return 12; /* ENOMEM */
    long ret = sys3(NR_SCHED_SETAFFINITY, tid, (long) n * 8, (long) words);
    (*env)->ReleasePrimitiveArrayCritical(env, mask, words, JNI_ABORT);
    if (ret >= 0 && placed && tid == 0) mark_placed(env);
    return err(ret);
}

/*
 * The thread's mask into mask (sized and zeroed by the caller: the kernel writes only the words
 * it has); returns 0 or errno.
 */
JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_getAffinity0(JNIEnv *env, jclass cls, jint tid, jlongArray mask) {
    jsize n = (*env)->GetArrayLength(env, mask);
    jlong *words = (*env)->GetPrimitiveArrayCritical(env, mask, 0);
    if (words == 0) return 12; /* ENOMEM */
    long ret = sys3(NR_SCHED_GETAFFINITY, tid, (long) n * 8, (long) words);
    (*env)->ReleasePrimitiveArrayCritical(env, mask, words, ret < 0 ? JNI_ABORT : 0);
    return err(ret);
}

/*
 * The calling thread's memory policy: mode (MPOL_DEFAULT 0, MPOL_BIND 2, MPOL_INTERLEAVE 3) over
 * the nodes in nodes (long[] words, as masks are; ignored for MPOL_DEFAULT); returns 0 or errno.
 * The kernel reads maxnode - 1 bits, hence the + 1.
 */
JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_setMemoryPolicy0(JNIEnv *env, jclass cls, jint mode, jlongArray nodes) {
    jsize n = (*env)->GetArrayLength(env, nodes);
    jlong *words = (*env)->GetPrimitiveArrayCritical(env, nodes, 0);
    if (words == 0) return 12; /* ENOMEM */
    long ret = sys3(NR_SET_MEMPOLICY, mode, mode == 0 ? 0 : (long) words, mode == 0 ? 0 : (long) n * 64 + 1);
    (*env)->ReleasePrimitiveArrayCritical(env, nodes, words, JNI_ABORT);
    return err(ret);
}

/* The calling thread's memory policy: its nodes into nodes (sized by the caller); returns the mode, or -errno. */
JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_getMemoryPolicy0(JNIEnv *env, jclass cls, jlongArray nodes) {
    jsize n = (*env)->GetArrayLength(env, nodes);
    int mode = -1;
    jlong *words = (*env)->GetPrimitiveArrayCritical(env, nodes, 0);
    if (words == 0) return -12; /* ENOMEM */
    /* get_mempolicy(mode, nodemask, maxnode, addr, flags): addr 0 and flags 0 ask for the thread's policy */
    long ret = sys5(NR_GET_MEMPOLICY, (long) &mode, (long) words, (long) n * 64 + 1, 0, 0);
    (*env)->ReleasePrimitiveArrayCritical(env, nodes, words, ret < 0 ? JNI_ABORT : 0);
    return ret < 0 ? (jint) ret : mode;
}

JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_gettid0(JNIEnv *env, jclass cls) {
    return (jint) sys3(NR_GETTID, 0, 0, 0);
}

/* The PU the calling thread runs on now (getcpu), or the negated errno. */
JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_currentCpu0(JNIEnv *env, jclass cls) {
    unsigned int cpu = 0;
    long ret = sys3(NR_GETCPU, (long) &cpu, 0, 0);
    return ret < 0 ? (jint) ret : (jint) cpu;
}

/*
 * CPUID(leaf, subleaf) into regs[0..3] = eax, ebx, ecx, edx, on whichever CPU the calling thread
 * runs; returns 0, or ENOSYS (38) where there is no CPUID (aarch64).
 */
JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_cpuid0(JNIEnv *env, jclass cls, jint leaf, jint subleaf, jintArray regs) {
#if defined(__x86_64__)
    jint r[4];
    __asm__ volatile ("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(subleaf));
    (*env)->SetIntArrayRegion(env, regs, 0, 4, r);
    return 0;
#else
    return 38; /* ENOSYS */
#endif
}

/*
 * A descriptor to ask about the locks on the plain file at path (bytes, no terminator), never
 * following a link and never blocking (a FIFO swapped in): fd, or -errno (EINVAL: not a plain
 * file). Its device and inode go into devIno[0..1] as fstat gives them (st_dev, st_ino).
 * The caller closes it only through retireLockProbe0: closing any descriptor of a file drops
 * every POSIX lock the process holds on that file.
 */
JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_lockProbe0(JNIEnv *env, jclass cls, jbyteArray path, jlongArray devIno) {
    static const long O_RDONLY_NONBLOCK_NOCTTY_CLOEXEC = 04000 | 0400 | 02000000;
    char name[4096];
    jsize n = (*env)->GetArrayLength(env, path);
    if (n <= 0 || n >= (jsize) sizeof name) return -36; /* ENAMETOOLONG */
    (*env)->GetByteArrayRegion(env, path, 0, n, (jbyte *) name);
    name[n] = 0;
    long fd = sys3(NR_OPENAT, -100 /* AT_FDCWD */, (long) name, O_RDONLY_NONBLOCK_NOCTTY_CLOEXEC | O_NOFOLLOW_);
    if (fd < 0) return (jint) fd;
    unsigned long st[32]; /* struct stat is 144 bytes on x86_64, 128 on aarch64 */
    long ret = sys3(NR_FSTAT, fd, (long) st, 0);
    unsigned int mode = *(unsigned int *) ((char *) st + STAT_MODE_AT);
    if (ret < 0 || (mode & 0170000) != 0100000) {
        sys3(NR_CLOSE, fd, 0, 0); /* no plain file: nobody's lock is on it */
        return ret < 0 ? (jint) ret : -22; /* EINVAL */
    }
    jlong key[2] = {(jlong) st[0], (jlong) st[1]};
    (*env)->SetLongArrayRegion(env, devIno, 0, 2, key);
    return (jint) fd;
}

/*
 * Who holds a lock on the file of fd (a lockProbe0 descriptor), this process included: into
 * pid[0] the holder's pid, 0 for none, -1 for a holder without one (an open file description's
 * lock); returns 0 or errno. F_OFD_GETLK tests as an owner of its own, so the process's own POSIX
 * locks conflict and are seen; unlike a read of /proc/locks it takes no node-wide lock.
 */
JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_lockHolder0(JNIEnv *env, jclass cls, jint fd, jintArray pid) {
    struct { short type, whence; long start, len; int pid; } l = {1 /* F_WRLCK */, 0, 0, 0, 0}; /* struct flock, 64-bit */
    long ret = sys3(NR_FCNTL, fd, 36 /* F_OFD_GETLK */, (long) &l);
    if (ret < 0) return err(ret);
    jint holder = l.type == 2 /* F_UNLCK */ ? 0 : l.pid;
    (*env)->SetIntArrayRegion(env, pid, 0, 1, &holder);
    return 0;
}

/*
 * Closes the lockProbe0 descriptor fd when its file is linked in no directory any more (deleted):
 * no one who goes by a path can see a lock on it, so dropping this process's locks there, as the
 * close does, changes nothing. Returns 0 when closed, 1 when kept (still linked), or -errno.
 */
JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_retireLockProbe0(JNIEnv *env, jclass cls, jint fd) {
    unsigned long st[32];
    long ret = sys3(NR_FSTAT, fd, (long) st, 0);
    if (ret < 0) return (jint) ret;
    if (STAT_NLINK(st) != 0) return 1;
    ret = sys3(NR_CLOSE, fd, 0, 0);
    return ret < 0 ? (jint) ret : 0;
}

/*
 * Defines class name (internal form) from bytes in the boot loader, as JNI allows for a package
 * of java.base; the class, or null with the JVM's exception pending (thrown on return).
 */
JNIEXPORT jclass JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_defineBootClass0(JNIEnv *env, jclass cls, jstring name, jbyteArray bytes) {
    const char *n = (*env)->GetStringUTFChars(env, name, 0);
    if (n == 0) return 0;
    jsize len = (*env)->GetArrayLength(env, bytes);
    jbyte *b = (*env)->GetByteArrayElements(env, bytes, 0);
    jclass c = 0;
    if (b != 0) {
        c = (*env)->DefineClass(env, n, 0, b, len);
        (*env)->ReleaseByteArrayElements(env, bytes, b, JNI_ABORT);
    }
    (*env)->ReleaseStringUTFChars(env, name, n);
    return c;
}

enum member { STATIC_FIELD, STATIC_METHOD };

/*
 * The ID of the member name of type signature (Java strings) of class c; 0, with nothing pending,
 * where c has none (not this JDK's field), or 0 with OutOfMemoryError pending.
 */
static void *member(JNIEnv *env, jclass c, jstring name, jstring signature, enum member kind) {
    const char *n = (*env)->GetStringUTFChars(env, name, 0);
    if (n == 0) return 0;
    const char *s = (*env)->GetStringUTFChars(env, signature, 0);
    void *id = 0;
    if (s != 0) {
        id = kind == STATIC_FIELD ? (void *) (*env)->GetStaticFieldID(env, c, n, s)
                : (void *) (*env)->GetStaticMethodID(env, c, n, s);
        if (id == 0) (*env)->ExceptionClear(env);
        (*env)->ReleaseStringUTFChars(env, signature, s);
    }
    (*env)->ReleaseStringUTFChars(env, name, n);
    return id;
}

/*
 * The Runnable thread t was made with, whatever the field's access (JNI does not check it):
 * Thread.target up to JDK 18, Thread.holder.task from JDK 19 (holder says which); null where the
 * field is not there. Read as every platform thread starts, so the field IDs are looked up once
 * and kept: Thread's live as long as the JVM, and a lookup costs more than the reading.
 */
static jfieldID task_field, holder_field;
static int task_looked; /* the fields above were looked up (set after them) */

JNIEXPORT jobject JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_threadTask0(JNIEnv *env, jclass cls, jobject t, jboolean holder) {
    if (!__atomic_load_n(&task_looked, __ATOMIC_ACQUIRE)) {
        jfieldID task = 0, in = 0;
        jclass thread = (*env)->FindClass(env, "java/lang/Thread");
        if (thread != 0 && holder) {
            in = (*env)->GetFieldID(env, thread, "holder", "Ljava/lang/Thread$FieldHolder;");
            jclass h = in == 0 ? 0 : (*env)->FindClass(env, "java/lang/Thread$FieldHolder");
            task = h == 0 ? 0 : (*env)->GetFieldID(env, h, "task", "Ljava/lang/Runnable;");
        } else if (thread != 0) {
            task = (*env)->GetFieldID(env, thread, "target", "Ljava/lang/Runnable;");
        }
        if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
        /* a thread racing this one stores the same IDs */
        __atomic_store_n(&holder_field, task == 0 ? 0 : in, __ATOMIC_RELAXED);
        __atomic_store_n(&task_field, task, __ATOMIC_RELAXED);
        __atomic_store_n(&task_looked, 1, __ATOMIC_RELEASE);
    }
    jfieldID task = __atomic_load_n(&task_field, __ATOMIC_RELAXED);
    jfieldID in = __atomic_load_n(&holder_field, __ATOMIC_RELAXED);
    if (task == 0 || t == 0) return 0;
    jobject o = in == 0 ? t : (*env)->GetObjectField(env, t, in);
    return o == 0 ? 0 : (*env)->GetObjectField(env, o, task);
}

/*
 * Sets the static object field name of type signature of class c to value, then fences, as the
 * volatile store the field is declared as would (JNI's own store is plain); 0, or 1 (nothing
 * pending) where c has no such field. Reflection's Field.set spins method handles on JDK 18 and
 * later, milliseconds of a cold start on JDK 25.
 */
JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_setStaticField0(JNIEnv *env, jclass cls, jclass c, jstring name, jstring signature, jobject value) {
    jfieldID f = member(env, c, name, signature, STATIC_FIELD);
    if (f == 0) return 1;
    (*env)->SetStaticObjectField(env, c, f, value);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return 0;
}

/*
 * The library's one JVMTI environment (the thread events, the processor count and the frames
 * share it: each environment costs the JVM a call per event), got at the first call that needs
 * it, usually watchThreads0 as the agent starts; 0 until then.
 */
static jvmtiEnv *tool_env;

static jvmtiEnv *tool(JNIEnv *env) {
    jvmtiEnv *ti = __atomic_load_n(&tool_env, __ATOMIC_ACQUIRE);
    if (ti != 0) return ti;
    JavaVM *vm;
    if ((*env)->GetJavaVM(env, &vm) != JNI_OK || (*vm)->GetEnv(vm, (void **) &ti, JVMTI_VERSION_1_2) != JNI_OK) return 0;
    /* a frame's file and line (frame0); without them it has neither */
    static const jvmtiCapabilities names = {.can_get_source_file_name = 1, .can_get_line_numbers = 1};
    (*ti)->AddCapabilities(ti, &names);
    /* a pool made on another thread as the agent starts may come here at the same time: one environment wins */
    jvmtiEnv *first = 0;
    if (__atomic_compare_exchange_n(&tool_env, &first, ti, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return ti;
    (*ti)->DisposeEnvironment(ti);
    return first;
}

/*
 * The calling thread's innermost frames, this native method's first, up to MAX_FRAMES and the
 * arrays' length: each frame's method ID and bytecode index (-1 in a native method). Returns how
 * many, or -1. A throwable's stack trace costs a StackTraceElement per frame of the whole stack,
 * names and file looked up; where a pool was made needs a few frames, which the agent keeps by
 * method and index (Eligibility).
 */
#define MAX_FRAMES 64

JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_frames0(JNIEnv *env, jclass cls, jlongArray methods, jlongArray locations) {
    jvmtiEnv *ti = tool(env);
    jsize n = (*env)->GetArrayLength(env, methods);
    if (ti == 0 || (*env)->GetArrayLength(env, locations) < n) return -1;
    if (n > MAX_FRAMES) n = MAX_FRAMES;
    jvmtiFrameInfo frames[MAX_FRAMES];
    jint count = 0;
    if ((*ti)->GetStackTrace(ti, 0, 0, n, frames, &count) != JVMTI_ERROR_NONE) return -1;
    jlong m[MAX_FRAMES], at[MAX_FRAMES];
    for (jint i = 0; i < count; i++) {
        m[i] = (jlong) (long) frames[i].method;
        at[i] = frames[i].location;
    }
    (*env)->SetLongArrayRegion(env, methods, 0, count, m);
    (*env)->SetLongArrayRegion(env, locations, 0, count, at);
    return count;
}

/* The line of bytecode index location in method m; -1 when unknown. */
static jint line_of(jvmtiEnv *ti, jmethodID m, jlocation location) {
    jint n = 0;
    jvmtiLineNumberEntry *table = 0;
    if (location < 0 || (*ti)->GetLineNumberTable(ti, m, &n, &table) != JVMTI_ERROR_NONE) return -1;
    jint line = -1;
    jlocation best = -1;
    for (jint i = 0; i < n; i++) {
        if (table[i].start_location <= location && table[i].start_location > best) {
            best = table[i].start_location;
            line = table[i].line_number;
        }
    }
    (*ti)->Deallocate(ti, (unsigned char *) table);
    return line;
}

/*
 * Frame (method, location) of frames0 as a stack trace shows it: a StackTraceElement with the
 * class's name as Class.getName() gives it (a hidden class's suffix after a '.'), the method's
 * name, the source file and the line where the class has them; null where the method ID is no
 * longer valid (its class unloaded), or with OutOfMemoryError pending.
 */
JNIEXPORT jobject JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_frame0(JNIEnv *env, jclass cls, jlong method, jlong location) {
    jvmtiEnv *ti = tool(env);
    jmethodID m = (jmethodID) (long) method;
    jclass c = 0;
    if (ti == 0 || (*ti)->GetMethodDeclaringClass(ti, m, &c) != JVMTI_ERROR_NONE) return 0;
    char *sig = 0, *name = 0, *file = 0;
    jobject frame = 0;
    if ((*ti)->GetClassSignature(ti, c, &sig, 0) == JVMTI_ERROR_NONE && (*ti)->GetMethodName(ti, m, &name, 0, 0) == JVMTI_ERROR_NONE) {
        if ((*ti)->GetSourceFileName(ti, c, &file) != JVMTI_ERROR_NONE) file = 0;
        char *b = sig[0] == 'L' ? sig + 1 : sig; /* "Lcom/acme/Main;" -> "com.acme.Main" */
        char *e = b;
        for (; *e != 0 && *e != ';'; e++) {
            if (*e == '/') *e = '.';
        }
        *e = 0;
        jclass k = (*env)->FindClass(env, "java/lang/StackTraceElement");
        jmethodID make = k == 0 ? 0 : (*env)->GetMethodID(env, k, "<init>", "(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;I)V");
        jstring cn = make == 0 ? 0 : (*env)->NewStringUTF(env, b);
        jstring mn = cn == 0 ? 0 : (*env)->NewStringUTF(env, name);
        jstring fn = mn == 0 || file == 0 ? 0 : (*env)->NewStringUTF(env, file);
        if (mn != 0 && (file == 0 || fn != 0)) frame = (*env)->NewObject(env, k, make, cn, mn, fn, line_of(ti, m, location));
    }
    if (sig != 0) (*ti)->Deallocate(ti, (unsigned char *) sig);
    if (name != 0) (*ti)->Deallocate(ti, (unsigned char *) name);
    if (file != 0) (*ti)->Deallocate(ti, (unsigned char *) file);
    return frame;
}

/* The environment's event callbacks: one table, set again whenever an event is added. */
static jvmtiEventCallbacks callbacks;

/* Set once by watchThreads0, before the events are enabled; zero until then (static storage). */
static jclass watcher;
static jmethodID on_start, on_end;

static void mark_start(jvmtiEnv *ti);
static void mark_free(jvmtiEnv *ti);

/* Both events come on the thread itself; the hook catches what it throws, this what it cannot. */
static void JNICALL thread_started(jvmtiEnv *jvmti, JNIEnv *env, jthread thread) {
    mark_start(jvmti);
    (*env)->CallStaticVoidMethod(env, watcher, on_start, thread);
    (*env)->ExceptionClear(env);
}

static void JNICALL thread_ended(jvmtiEnv *jvmti, JNIEnv *env, jthread thread) {
    (*env)->CallStaticVoidMethod(env, watcher, on_end, thread);
    (*env)->ExceptionClear(env);
    mark_free(jvmti);
}

/*
 * From now on, every platform thread that starts calls c.start(thread) before its run() and
 * c.end(thread) after (static methods of descriptor signature), through JVMTI's ThreadStart and
 * ThreadEnd events (no capability needed, so a JVM in its live phase grants them). Once per JVM.
 * Returns 0; -1 when already watching; -2 when c lacks a method; -3 when the JVM gives no JVMTI
 * environment; else the JVMTI error. Called once, from the agent's start (not concurrently with
 * answerProcessors0, which shares the callback table).
 */
JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_watchThreads0(JNIEnv *env, jclass cls, jclass c, jstring start, jstring end, jstring signature) {
    if (watcher != 0) return -1;
    jmethodID s = member(env, c, start, signature, STATIC_METHOD);
    jmethodID e = s == 0 ? 0 : member(env, c, end, signature, STATIC_METHOD);
    if (e == 0) return -2;
    jvmtiEnv *jvmti = tool(env);
    if (jvmti == 0) return -3;
    watcher = (*env)->NewGlobalRef(env, c);
    on_start = s;
    on_end = e;
    callbacks.ThreadStart = thread_started;
    callbacks.ThreadEnd = thread_ended;
    jvmtiError r = (*jvmti)->SetEventCallbacks(jvmti, &callbacks, (jint) sizeof callbacks);
    if (r == JVMTI_ERROR_NONE) r = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_START, 0);
    if (r == JVMTI_ERROR_NONE) r = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_END, 0);
    return (jint) r;
}

/*
 * The processor count. HotSpot answers Runtime.availableProcessors() (and the management bean's
 * count, sun.management.VMManagementImpl.getAvailableProcessors) with the calling thread's mask
 * (sched_getaffinity), capped by a CPU quota or set by -XX:ActiveProcessorCount: a thread pinned
 * to one PU gets 1, and the JDK sizes pools and striped counters from that for the JVM's life.
 * So both natives are bound to processors() below: a thread whose mask is still the one qv4j gave
 * it answers what a thread with the JVM scope's mask answers (set from Java, scope_count), every
 * other thread what the JVM itself answers. Both natives of the JDK (17 to 25) return
 * JVM_ActiveProcessorCount() and ignore their receiver, so the JVM's Runtime one serves both.
 *
 * A thread's mark is its JVMTI thread-local storage in the library's environment: what mask qv4j
 * gave it and whether the thread still had it at its last look. Reading the storage is one of
 * JVMTI's few calls made without a thread-state transition. The mask itself is looked at, with one
 * system call, at most once per LOOK_TICKS: every call would cost more than the JVM's own answer
 * (which in a container is cached for 20 ms), and a mask changed by taskset or by the application
 * is seen within milliseconds, as the JVM itself sees a changed CPU quota. The same mark keeps the
 * mask the thread started with (its creator's), read at its ThreadStart event before any
 * application code ran on it: a worker whose mask differs from it when qv4j places it was bound by
 * the application (startMaskKept0).
 */
static jint (JNICALL *jvm_count)(JNIEnv *, jobject); /* the JVM's own Runtime.availableProcessors */
static jmethodID runtime_count_method;
static jint scope_count; /* 0: not known yet, every thread answers as the JVM does */
static int marking;      /* set by answerProcessors0: threads get a mark as they start */

struct mark {
    void *start;          /* mask_hash() of the mask the thread started with; 0: unknown */
    void *given;          /* mask_hash() of the mask qv4j gave the thread; 0: none */
    unsigned long looked; /* ticks() at the last look */
    int same;             /* the mask was still the given one then */
};

/* A cheap clock, only compared with itself: the time-stamp counter, or the virtual counter on aarch64. */
#if defined(__x86_64__)
#define LOOK_TICKS (1UL << 24) /* 5-10 ms at 1.7-3.5 GHz */
static unsigned long ticks(void) {
    unsigned int lo, hi;
    __asm__ volatile ("rdtsc" : "=a"(lo), "=d"(hi));
    return (unsigned long) hi << 32 | lo;
}
#else
#define LOOK_TICKS (1UL << 18) /* 5-10 ms at the usual 25-50 MHz; 0.25 ms at ARMv8.6's 1 GHz */
static unsigned long ticks(void) {
    unsigned long t;
    __asm__ volatile ("isb; mrs %0, cntvct_el0" : "=r"(t) : : "memory");
    return t;
}
#endif

/* Words of a mask read back from the kernel: 8192 PUs, as NativeAffinity.READ_WORDS. */
#define MASK_WORDS 128

/* The calling thread's mask, FNV-1a over its bytes up to the last word with a PU set; never 0; 0 on error. */
static void *mask_hash(void) {
    jlong words[MASK_WORDS];
    long n = sys3(NR_SCHED_GETAFFINITY, 0, sizeof words, (long) words);
    if (n <= 0) return 0;
    long w = n / 8;
    while (w > 0 && words[w - 1] == 0) w--;
    unsigned long h = 14695981039346656037UL;
    for (long i = 0; i < w; i++) {
        unsigned long x = (unsigned long) words[i];
        for (int b = 0; b < 8; b++) {
            h ^= (x >> (8 * b)) & 0xff;
            h *= 1099511628211UL;
        }
    }
    return (void *) (h | 1);
}

/* The calling thread's mark, made now (zeroed) if it has none; 0 when JVMTI refuses. */
static struct mark *mark_of(jvmtiEnv *ti) {
    struct mark *m = 0;
    if ((*ti)->GetThreadLocalStorage(ti, 0, (void **) &m) != JVMTI_ERROR_NONE) return 0;
    if (m != 0) return m;
    if ((*ti)->Allocate(ti, sizeof *m, (unsigned char **) &m) != JVMTI_ERROR_NONE) return 0;
    m->start = m->given = 0;
    m->looked = 0;
    m->same = 0;
    if ((*ti)->SetThreadLocalStorage(ti, 0, m) != JVMTI_ERROR_NONE) {
        (*ti)->Deallocate(ti, (unsigned char *) m);
        return 0;
    }
    return m;
}

/* A platform thread starts (ThreadStart): its mark keeps the mask it inherited. */
static void mark_start(jvmtiEnv *ti) {
    if (!__atomic_load_n(&marking, __ATOMIC_ACQUIRE)) return;
    struct mark *m = mark_of(ti);
    if (m != 0) m->start = mask_hash();
}

/*
 * The calling thread is one qv4j placed: it answers the JVM scope's count while its mask is the
 * one it has now (read back: the kernel leaves out PUs outside the cgroup's cpuset). Nothing to
 * mark before answerProcessors0 and scopeProcessors0 (a thread is bound after both).
 */
static void mark_placed(JNIEnv *env) {
    jvmtiEnv *ti = __atomic_load_n(&tool_env, __ATOMIC_ACQUIRE);
    if (ti == 0 || __atomic_load_n(&scope_count, __ATOMIC_RELAXED) <= 0) return;
    struct mark *m = mark_of(ti);
    if (m == 0) return;
    m->given = mask_hash();
    m->looked = ticks();
    m->same = m->given != 0;
}

/* The thread's mark goes with it (ThreadEnd). */
static void mark_free(jvmtiEnv *ti) {
    struct mark *m = 0;
    if ((*ti)->GetThreadLocalStorage(ti, 0, (void **) &m) == JVMTI_ERROR_NONE && m != 0) {
        (*ti)->SetThreadLocalStorage(ti, 0, 0);
        (*ti)->Deallocate(ti, (unsigned char *) m);
    }
}

static jint JNICALL processors(JNIEnv *env, jobject self) {
    jint n = __atomic_load_n(&scope_count, __ATOMIC_RELAXED);
    if (n > 0) {
        jvmtiEnv *ti = __atomic_load_n(&tool_env, __ATOMIC_ACQUIRE);
        struct mark *m = 0;
        if ((*ti)->GetThreadLocalStorage(ti, 0, (void **) &m) == JVMTI_ERROR_NONE && m != 0 && m->given != 0) {
            unsigned long now = ticks();
            if (now - m->looked >= LOOK_TICKS) {
                m->same = mask_hash() == m->given;
                m->looked = now;
            }
            if (m->same) return n;
        }
    }
    /* jvm_count is set before the JVM can call this function */
    return __atomic_load_n(&jvm_count, __ATOMIC_ACQUIRE)(env, self);
}

/* Whether method is name of the class of signature class_sig. */
static int is_method(jvmtiEnv *ti, jmethodID method, const char *name, const char *class_sig) {
    char *n = 0, *c = 0;
    jclass k = 0;
    int same = 0;
    if ((*ti)->GetMethodName(ti, method, &n, 0, 0) != JVMTI_ERROR_NONE) return 0;
    const char *a = n, *b = name;
    while (*a != 0 && *a == *b) a++, b++;
    if (*a == *b && (*ti)->GetMethodDeclaringClass(ti, method, &k) == JVMTI_ERROR_NONE
            && (*ti)->GetClassSignature(ti, k, &c, 0) == JVMTI_ERROR_NONE) {
        a = c, b = class_sig;
        while (*a != 0 && *a == *b) a++, b++;
        same = *a == *b;
        (*ti)->Deallocate(ti, (unsigned char *) c);
    }
    (*ti)->Deallocate(ti, (unsigned char *) n);
    return same;
}

/* While the management bean's count is unbound (it binds when java.management is first used). */
static int management_bound;

/*
 * The JVM binds a native method: Runtime's count (again, after answerProcessors0 unregistered
 * Runtime's natives) or the management bean's goes to processors(); the others are left alone.
 */
static void JNICALL native_bound(jvmtiEnv *ti, JNIEnv *env, jthread thread, jmethodID method, void *address, void **new_address) {
    if (address == (void *) processors) return;
    if (method == runtime_count_method) {
        __atomic_store_n(&jvm_count, (jint (JNICALL *)(JNIEnv *, jobject)) address, __ATOMIC_RELEASE);
        *new_address = (void *) processors;
    } else if (!__atomic_load_n(&management_bound, __ATOMIC_ACQUIRE) && jvm_count != 0
            && is_method(ti, method, "getAvailableProcessors", "Lsun/management/VMManagementImpl;")) {
        *new_address = (void *) processors;
        __atomic_store_n(&management_bound, 1, __ATOMIC_RELEASE);
        (*ti)->SetEventNotificationMode(ti, JVMTI_DISABLE, JVMTI_EVENT_NATIVE_METHOD_BIND, 0);
    }
}

/*
 * Binds Runtime.availableProcessors (of runtime, the Runtime) and, when java.management binds it,
 * the management bean's count to processors(). The JVM's own function is taken from JVMTI's
 * NativeMethodBind event as the JVM binds it again after Runtime's natives are unregistered (they
 * are found again by name in libjava at their next call). management: the management bean's
 * class where it is loaded (its count may be bound already: an attach), so its natives are
 * unregistered too; null otherwise.
 * Returns 0; -1 when already done; -3 without a JVMTI environment; -4 when the JVM did not bind the
 * count again through the event (it then answers as without the agent); else the JVMTI error.
 */
JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_answerProcessors0(JNIEnv *env, jclass cls, jobject runtime, jclass management) {
    if (runtime_count_method != 0) return -1;
    jvmtiEnv *ti = tool(env);
    if (ti == 0) return -3;
    static jvmtiCapabilities wanted; /* static: zeroed without a memset */
    wanted.can_generate_native_method_bind_events = 1;
    jvmtiError r = (*ti)->AddCapabilities(ti, &wanted);
    if (r != JVMTI_ERROR_NONE) return (jint) r;
    jclass rc = (*env)->GetObjectClass(env, runtime);
    runtime_count_method = (*env)->GetMethodID(env, rc, "availableProcessors", "()I");
    if (runtime_count_method == 0) {
        (*env)->ExceptionClear(env);
        return -4;
    }
    __atomic_store_n(&marking, 1, __ATOMIC_RELEASE);
    callbacks.NativeMethodBind = native_bound;
    r = (*ti)->SetEventCallbacks(ti, &callbacks, (jint) sizeof callbacks);
    if (r == JVMTI_ERROR_NONE) r = (*ti)->SetEventNotificationMode(ti, JVMTI_ENABLE, JVMTI_EVENT_NATIVE_METHOD_BIND, 0);
    if (r != JVMTI_ERROR_NONE) return (jint) r;
    if ((*env)->UnregisterNatives(env, rc) == 0 && (management == 0 || (*env)->UnregisterNatives(env, management) == 0)) {
        (*env)->CallIntMethod(env, runtime, runtime_count_method); /* binds it again, through native_bound */
    }
    (*env)->ExceptionClear(env);
    return __atomic_load_n(&jvm_count, __ATOMIC_ACQUIRE) != 0 ? 0 : -4;
}

/* From now on a thread qv4j placed answers n (> 0), what a thread whose mask is the JVM scope answers. */
JNIEXPORT void JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_scopeProcessors0(JNIEnv *env, jclass cls, jint n) {
    __atomic_store_n(&scope_count, n, __ATOMIC_RELAXED);
}

/*
 * Whether the calling thread's mask is still the one it started with: 1 yes, 0 no (something
 * bound it since), -1 unknown (it started before answerProcessors0, or its mask is unreadable).
 */
JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_startMaskKept0(JNIEnv *env, jclass cls) {
    jvmtiEnv *ti = __atomic_load_n(&tool_env, __ATOMIC_ACQUIRE);
    struct mark *m = 0;
    if (ti == 0 || (*ti)->GetThreadLocalStorage(ti, 0, (void **) &m) != JVMTI_ERROR_NONE || m == 0 || m->start == 0) return -1;
    void *now = mask_hash();
    return now == 0 ? -1 : now == m->start;
}

/* What the JVM itself answers on the calling thread, whatever qv4j did; -1 before answerProcessors0 took it. */
JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_jvmProcessors0(JNIEnv *env, jclass cls, jobject runtime) {
    jint (JNICALL *jvm)(JNIEnv *, jobject) = __atomic_load_n(&jvm_count, __ATOMIC_ACQUIRE);
    return jvm != 0 ? jvm(env, runtime) : -1;
}

/*
 * JDK 24 and later check native access where a library is loaded and where a native method is
 * linked by name at its first call, for the module of the loading or the declaring class; the
 * agent's classes are in an unnamed module, whose access is the one all unnamed modules share. So
 * there the library is loaded by java.util.concurrent.QvNative, a class the agent defines in
 * java.base (which has native access), and NativeAffinity's methods are bound here, not linked by
 * name. NativeLibraryTest checks this table against NativeAffinity's native methods.
 */
JNIEXPORT jint JNICALL
Java_java_util_concurrent_QvNative_bind(JNIEnv *env, jclass cls, jclass natives) {
    static const JNINativeMethod methods[] = {
        {"watchThreads0", "(Ljava/lang/Class;Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;)I",
                (void *) Java_io_qv4j_agent_bind_NativeAffinity_watchThreads0},
        {"defineBootClass0", "(Ljava/lang/String;[B)Ljava/lang/Class;", (void *) Java_io_qv4j_agent_bind_NativeAffinity_defineBootClass0},
        {"setStaticField0", "(Ljava/lang/Class;Ljava/lang/String;Ljava/lang/String;Ljava/lang/Object;)I",
                (void *) Java_io_qv4j_agent_bind_NativeAffinity_setStaticField0},
        {"threadTask0", "(Ljava/lang/Thread;Z)Ljava/lang/Object;", (void *) Java_io_qv4j_agent_bind_NativeAffinity_threadTask0},
        {"frames0", "([J[J)I", (void *) Java_io_qv4j_agent_bind_NativeAffinity_frames0},
        {"frame0", "(JJ)Ljava/lang/StackTraceElement;", (void *) Java_io_qv4j_agent_bind_NativeAffinity_frame0},
        {"setAffinity0", "(I[JZ)I", (void *) Java_io_qv4j_agent_bind_NativeAffinity_setAffinity0},
        {"answerProcessors0", "(Ljava/lang/Runtime;Ljava/lang/Class;)I", (void *) Java_io_qv4j_agent_bind_NativeAffinity_answerProcessors0},
        {"scopeProcessors0", "(I)V", (void *) Java_io_qv4j_agent_bind_NativeAffinity_scopeProcessors0},
        {"startMaskKept0", "()I", (void *) Java_io_qv4j_agent_bind_NativeAffinity_startMaskKept0},
        {"jvmProcessors0", "(Ljava/lang/Runtime;)I", (void *) Java_io_qv4j_agent_bind_NativeAffinity_jvmProcessors0},
        {"cpuid0", "(II[I)I", (void *) Java_io_qv4j_agent_bind_NativeAffinity_cpuid0},
        {"getAffinity0", "(I[J)I", (void *) Java_io_qv4j_agent_bind_NativeAffinity_getAffinity0},
        {"gettid0", "()I", (void *) Java_io_qv4j_agent_bind_NativeAffinity_gettid0},
        {"currentCpu0", "()I", (void *) Java_io_qv4j_agent_bind_NativeAffinity_currentCpu0},
        {"setMemoryPolicy0", "(I[J)I", (void *) Java_io_qv4j_agent_bind_NativeAffinity_setMemoryPolicy0},
        {"getMemoryPolicy0", "([J)I", (void *) Java_io_qv4j_agent_bind_NativeAffinity_getMemoryPolicy0},
        {"lockProbe0", "([B[J)I", (void *) Java_io_qv4j_agent_bind_NativeAffinity_lockProbe0},
        {"lockHolder0", "(I[I)I", (void *) Java_io_qv4j_agent_bind_NativeAffinity_lockHolder0},
        {"retireLockProbe0", "(I)I", (void *) Java_io_qv4j_agent_bind_NativeAffinity_retireLockProbe0},
    };
    return (*env)->RegisterNatives(env, natives, methods, (jint) (sizeof methods / sizeof methods[0]));
}
