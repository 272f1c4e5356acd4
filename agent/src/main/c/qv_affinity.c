/*
 * The agent's native binding: sched_setaffinity/sched_getaffinity and gettid through JNI, and
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
 * deoptimizes what depends on it and throws away the compiles in flight.
 *
 * No C library: the three system calls are made directly, so the same file loads on glibc and
 * musl systems alike and needs no shared library (built by scripts/build-native, -nostdlib).
 */
#include <jni.h>
#include <jvmti.h>

#if defined(__x86_64__)
#define NR_SCHED_SETAFFINITY 203
#define NR_SCHED_GETAFFINITY 204
#define NR_GETTID 186

static long sys3(long n, long a, long b, long c) {
    long ret;
    __asm__ volatile ("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return ret;
}
#elif defined(__aarch64__)
#define NR_SCHED_SETAFFINITY 122
#define NR_SCHED_GETAFFINITY 123
#define NR_GETTID 178

static long sys3(long n, long a, long b, long c) {
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    __asm__ volatile ("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
    return x0;
}
#else
#error "only x86_64 and aarch64"
#endif

/* The kernel returns -errno on failure. */
static jint err(long ret) {
    return ret < 0 ? (jint) -ret : 0;
}

/*
 * Binds thread tid (0: the caller) to mask; returns 0 or errno. The array is used in place
 * (critical region: one short system call, no JNI calls inside), so no buffer is needed.
 */
JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_setAffinity0(JNIEnv *env, jclass cls, jint tid, jlongArray mask) {
    jsize n = (*env)->GetArrayLength(env, mask);
    jlong *words = (*env)->GetPrimitiveArrayCritical(env, mask, 0);
    if (words == 0) return 12; /* ENOMEM */
    long ret = sys3(NR_SCHED_SETAFFINITY, tid, (long) n * 8, (long) words);
    (*env)->ReleasePrimitiveArrayCritical(env, mask, words, JNI_ABORT);
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

JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_gettid0(JNIEnv *env, jclass cls) {
    return (jint) sys3(NR_GETTID, 0, 0, 0);
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

enum member { FIELD, STATIC_FIELD, STATIC_METHOD };

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
        id = kind == FIELD ? (void *) (*env)->GetFieldID(env, c, n, s)
                : kind == STATIC_FIELD ? (void *) (*env)->GetStaticFieldID(env, c, n, s)
                : (void *) (*env)->GetStaticMethodID(env, c, n, s);
        if (id == 0) (*env)->ExceptionClear(env);
        (*env)->ReleaseStringUTFChars(env, signature, s);
    }
    (*env)->ReleaseStringUTFChars(env, name, n);
    return id;
}

/*
 * The object field name of type signature of o, whatever its access (JNI does not check it);
 * null, with nothing pending, where o has no such field.
 */
JNIEXPORT jobject JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_objectField0(JNIEnv *env, jclass cls, jobject o, jstring name, jstring signature) {
    jfieldID f = member(env, (*env)->GetObjectClass(env, o), name, signature, FIELD);
    return f == 0 ? 0 : (*env)->GetObjectField(env, o, f);
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

/* Set once by watchThreads0, before the events are enabled; zero until then (static storage). */
static jclass watcher;
static jmethodID on_start, on_end;
static jvmtiEventCallbacks callbacks;

/* Both events come on the thread itself; the hook catches what it throws, this what it cannot. */
static void JNICALL thread_started(jvmtiEnv *jvmti, JNIEnv *env, jthread thread) {
    (*env)->CallStaticVoidMethod(env, watcher, on_start, thread);
    (*env)->ExceptionClear(env);
}

static void JNICALL thread_ended(jvmtiEnv *jvmti, JNIEnv *env, jthread thread) {
    (*env)->CallStaticVoidMethod(env, watcher, on_end, thread);
    (*env)->ExceptionClear(env);
}

/*
 * From now on, every platform thread that starts calls c.start(thread) before its run() and
 * c.end(thread) after (static methods of descriptor signature), through JVMTI's ThreadStart and
 * ThreadEnd events (no capability needed, so a JVM in its live phase grants them). Once per JVM.
 * Returns 0; -1 when already watching; -2 when c lacks a method; -3 when the JVM gives no JVMTI
 * environment; else the JVMTI error.
 */
JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_watchThreads0(JNIEnv *env, jclass cls, jclass c, jstring start, jstring end, jstring signature) {
    if (watcher != 0) return -1;
    jmethodID s = member(env, c, start, signature, STATIC_METHOD);
    jmethodID e = s == 0 ? 0 : member(env, c, end, signature, STATIC_METHOD);
    if (e == 0) return -2;
    JavaVM *vm;
    jvmtiEnv *jvmti;
    if ((*env)->GetJavaVM(env, &vm) != JNI_OK || (*vm)->GetEnv(vm, (void **) &jvmti, JVMTI_VERSION_1_2) != JNI_OK) return -3;
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
