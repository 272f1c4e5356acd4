/*
 * Drives the JNI binding library's processor count and thread marks without a JVM, through a
 * JNIEnv, a JavaVM and a jvmtiEnv that have only the functions the library calls, the JVM's part
 * played here: binding Runtime.availableProcessors again after UnregisterNatives posts
 * NativeMethodBind with this file's jvm_count, which counts the calling thread's mask as HotSpot
 * does. Run natively and, for aarch64, under qemu-user. Prints one line of NAME=VALUE and exits 0
 * when every step answered as the library promises:
 *   bound    answerProcessors0 took the JVM's function and gave its own (0);
 *   unmarked a thread qv4j did not place gets the JVM's count;
 *   placed   bound by qv4j to one PU, the thread answers the scope's count (5);
 *   kept     the mask the thread started with is still its mask (1), then not (0) once bound;
 *   soon     its mask changed by someone else, it still answers the scope's count within the
 *            look period (no system call per answer; checked on x86, where the period is 5-10 ms);
 *   moved    and the JVM's count again after the look period ("-" where one PU is allowed:
 *            nothing to move to);
 *   ended    after its ThreadEnd, the JVM's count.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <jni.h>
#include <jvmti.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LIB(name) Java_io_qv4j_agent_bind_NativeAffinity_##name
JNIEXPORT jint JNICALL LIB(setAffinity0)(JNIEnv *, jclass, jint, jlongArray, jboolean);
JNIEXPORT jint JNICALL LIB(getAffinity0)(JNIEnv *, jclass, jint, jlongArray);
JNIEXPORT jint JNICALL LIB(watchThreads0)(JNIEnv *, jclass, jclass, jstring, jstring, jstring);
JNIEXPORT jint JNICALL LIB(answerProcessors0)(JNIEnv *, jclass, jobject, jclass);
JNIEXPORT void JNICALL LIB(scopeProcessors0)(JNIEnv *, jclass, jint);
JNIEXPORT jint JNICALL LIB(startMaskKept0)(JNIEnv *, jclass);
JNIEXPORT jint JNICALL LIB(jvmProcessors0)(JNIEnv *, jclass, jobject);

#define WORDS 16
struct array { jsize n; jlong w[WORDS]; };

/* ---- the JVM's part ---- */

static jvmtiEventCallbacks events;
static void *storage; /* one thread here: one slot of thread-local storage */
static jint (JNICALL *answer)(JNIEnv *, jobject); /* what the library bound the native to */
static jmethodID runtime_count = (jmethodID) 0x42;

static jint JNICALL jvm_count(JNIEnv *env, jobject self) {
    cpu_set_t s;
    return sched_getaffinity(0, sizeof s, &s) == 0 ? CPU_COUNT(&s) : -1;
}

static jsize JNICALL length(JNIEnv *env, jarray a) { return ((struct array *) a)->n; }
static void *JNICALL critical(JNIEnv *env, jarray a, jboolean *copy) { return ((struct array *) a)->w; }
static void JNICALL release(JNIEnv *env, jarray a, void *p, jint mode) { }
static jclass JNICALL object_class(JNIEnv *env, jobject o) { return (jclass) o; }
static jmethodID JNICALL method_id(JNIEnv *env, jclass c, const char *n, const char *s) { return strcmp(n, "availableProcessors") == 0 ? runtime_count : (jmethodID) 0x43; }
static jmethodID JNICALL static_method_id(JNIEnv *env, jclass c, const char *n, const char *s) { return (jmethodID) 0x44; }
static const char *JNICALL utf(JNIEnv *env, jstring s, jboolean *copy) { return (const char *) s; }
static void JNICALL release_utf(JNIEnv *env, jstring s, const char *c) { }
static jobject JNICALL global(JNIEnv *env, jobject o) { return o; }
static void JNICALL clear(JNIEnv *env) { }
static void JNICALL call_static(JNIEnv *env, jclass c, jmethodID m, ...) { }
static jint JNICALL unregister(JNIEnv *env, jclass c) { return 0; }

/* The JVM binds the unregistered native again at this call: it posts NativeMethodBind first. */
static jint JNICALL call_int(JNIEnv *env, jobject o, jmethodID m, ...) {
    void *bound = (void *) jvm_count;
    if (events.NativeMethodBind != 0) events.NativeMethodBind(0, env, 0, m, (void *) jvm_count, &bound);
    answer = (jint (JNICALL *)(JNIEnv *, jobject)) bound;
    return answer(env, o);
}

static jvmtiError JNICALL add_capabilities(jvmtiEnv *ti, const jvmtiCapabilities *c) { return JVMTI_ERROR_NONE; }
static jvmtiError JNICALL set_callbacks(jvmtiEnv *ti, const jvmtiEventCallbacks *c, jint size) { memcpy(&events, c, sizeof events); return JVMTI_ERROR_NONE; }
static jvmtiError JNICALL notification(jvmtiEnv *ti, jvmtiEventMode m, jvmtiEvent e, jthread t, ...) { return JVMTI_ERROR_NONE; }
static jvmtiError JNICALL get_storage(jvmtiEnv *ti, jthread t, void **p) { *p = storage; return JVMTI_ERROR_NONE; }
static jvmtiError JNICALL set_storage(jvmtiEnv *ti, jthread t, const void *p) { storage = (void *) p; return JVMTI_ERROR_NONE; }
static jvmtiError JNICALL allocate(jvmtiEnv *ti, jlong n, unsigned char **p) { *p = malloc(n); return *p ? JVMTI_ERROR_NONE : JVMTI_ERROR_OUT_OF_MEMORY; }
static jvmtiError JNICALL deallocate(jvmtiEnv *ti, unsigned char *p) { free(p); return JVMTI_ERROR_NONE; }

static struct jvmtiInterface_1_ tool_fns;
static const struct jvmtiInterface_1_ *tool_table = &tool_fns;

static jint JNICALL get_env(JavaVM *vm, void **out, jint version) { *out = (void *) &tool_table; return JNI_OK; }
static struct JNIInvokeInterface_ vm_fns;
static const struct JNIInvokeInterface_ *vm_table = &vm_fns;
static jint JNICALL java_vm(JNIEnv *env, JavaVM **vm) { *vm = (JavaVM *) &vm_table; return JNI_OK; }

/* ---- the test ---- */

static int count(const struct array *a) {
    int n = 0;
    for (int i = 0; i < WORDS; i++) n += __builtin_popcountll((unsigned long long) a->w[i]);
    return n;
}

int main(void) {
    struct JNINativeInterface_ fns;
    memset(&fns, 0, sizeof fns);
    fns.GetArrayLength = length;
    fns.GetPrimitiveArrayCritical = critical;
    fns.ReleasePrimitiveArrayCritical = release;
    fns.GetJavaVM = java_vm;
    fns.GetObjectClass = object_class;
    fns.GetMethodID = method_id;
    fns.GetStaticMethodID = static_method_id;
    fns.GetStringUTFChars = utf;
    fns.ReleaseStringUTFChars = release_utf;
    fns.NewGlobalRef = global;
    fns.ExceptionClear = clear;
    fns.CallStaticVoidMethod = call_static;
    fns.CallIntMethod = call_int;
    fns.UnregisterNatives = unregister;
    vm_fns.GetEnv = get_env;
    tool_fns.AddCapabilities = add_capabilities;
    tool_fns.SetEventCallbacks = set_callbacks;
    tool_fns.SetEventNotificationMode = notification;
    tool_fns.GetThreadLocalStorage = get_storage;
    tool_fns.SetThreadLocalStorage = set_storage;
    tool_fns.Allocate = allocate;
    tool_fns.Deallocate = deallocate;
    const struct JNINativeInterface_ *table = &fns;
    JNIEnv *env = &table;
    jobject runtime = (jobject) 0x10;

    struct array all, one;
    memset(&all, 0, sizeof all);
    all.n = WORDS;
    if (LIB(getAffinity0)(env, 0, 0, (jlongArray) &all) != 0 || all.w[0] == 0) {
        printf("cannot read the mask\n");
        return 1;
    }
    memset(&one, 0, sizeof one);
    one.n = 1;
    one.w[0] = all.w[0] & -all.w[0]; /* the lowest allowed PU (of the first 64) */
    int pus = count(&all);

    int watch = LIB(watchThreads0)(env, 0, (jclass) 0x20, (jstring) "start", (jstring) "end", (jstring) "(Ljava/lang/Object;)V");
    int bound = LIB(answerProcessors0)(env, 0, runtime, 0);
    int jvm = LIB(jvmProcessors0)(env, 0, runtime);
    jvmtiEnv *ti = (jvmtiEnv *) &tool_table;
    events.ThreadStart(ti, env, 0); /* this thread "starts": the library keeps its mask */
    int kept = LIB(startMaskKept0)(env, 0);
    LIB(scopeProcessors0)(env, 0, 5);
    int unmarked = answer(env, runtime);
    LIB(setAffinity0)(env, 0, 0, (jlongArray) &one, JNI_TRUE);
    int placed = answer(env, runtime);
    int kept_after = LIB(startMaskKept0)(env, 0);
    LIB(setAffinity0)(env, 0, 0, (jlongArray) &all, JNI_FALSE); /* moved by someone else */
    int soon = answer(env, runtime);
    struct timespec look = {0, 40 * 1000 * 1000}; /* past the look period: 5-10 ms, up to 10 ms under qemu's 1 GHz counter */
    nanosleep(&look, 0);
    int moved = answer(env, runtime);
    events.ThreadEnd(ti, env, 0);
    int ended = answer(env, runtime);

    int ok = watch == 0 && bound == 0 && jvm == pus && unmarked == pus && placed == 5 && kept == 1 && ended == pus && storage == 0;
    if (pus > 1) ok = ok && kept_after == 0 && moved == pus;
#if defined(__x86_64__)
    ok = ok && soon == 5; /* the mask is not looked at again before the look period ends (under qemu the period may be 0.25 ms) */
#endif
    printf("pus=%d bound=%d jvm=%d unmarked=%d placed=%d kept=%d,%d soon=%d moved=", pus, bound, jvm, unmarked, placed, kept, kept_after, soon);
    if (pus > 1) printf("%d", moved); else printf("-");
    printf(" ended=%d\n", ended);
    return ok ? 0 : 1;
}
