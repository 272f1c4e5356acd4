/*
 * Calls the JNI binding library's functions without a JVM, through a JNIEnv that has only
 * the array functions the library uses: how the aarch64 build is exercised under qemu-user on an
 * x86_64 machine. Prints "tid=N before=0xMASK after=0xMASK cpu=N restored=0xMASK cpuid=RC" and
 * exits 0 when binding to the lowest allowed PU took effect (the thread then runs there) and the
 * original mask came back; CPUID answers ENOSYS (38) off x86.
 */
#include <jni.h>
#include <stdio.h>
#include <string.h>

JNIEXPORT jint JNICALL Java_io_qv4j_agent_bind_NativeAffinity_setAffinity0(JNIEnv *, jclass, jint, jlongArray, jboolean);
JNIEXPORT jint JNICALL Java_io_qv4j_agent_bind_NativeAffinity_getAffinity0(JNIEnv *, jclass, jint, jlongArray);
JNIEXPORT jint JNICALL Java_io_qv4j_agent_bind_NativeAffinity_gettid0(JNIEnv *, jclass);
JNIEXPORT jint JNICALL Java_io_qv4j_agent_bind_NativeAffinity_currentCpu0(JNIEnv *, jclass);
JNIEXPORT jint JNICALL Java_io_qv4j_agent_bind_NativeAffinity_cpuid0(JNIEnv *, jclass, jint, jint, jintArray);

#define WORDS 16
struct array { jsize n; jlong w[WORDS]; };

static jsize JNICALL length(JNIEnv *env, jarray a) { return ((struct array *) a)->n; }
static void *JNICALL critical(JNIEnv *env, jarray a, jboolean *copy) { return ((struct array *) a)->w; }
static void JNICALL release(JNIEnv *env, jarray a, void *p, jint mode) { }

static int get(JNIEnv *env, struct array *a) {
    memset(a, 0, sizeof *a);
    a->n = WORDS;
    return Java_io_qv4j_agent_bind_NativeAffinity_getAffinity0(env, 0, 0, (jlongArray) a);
}

int main(void) {
    struct JNINativeInterface_ fns;
    memset(&fns, 0, sizeof fns);
    fns.GetArrayLength = length;
    fns.GetPrimitiveArrayCritical = critical;
    fns.ReleasePrimitiveArrayCritical = release;
    const struct JNINativeInterface_ *table = &fns;
    JNIEnv *env = &table;

    jint tid = Java_io_qv4j_agent_bind_NativeAffinity_gettid0(env, 0);
    struct array before, one, after, restored;
    if (tid <= 0 || get(env, &before) != 0 || before.w[0] == 0) {
        printf("tid=%d: cannot read the mask\n", tid);
        return 1;
    }
    memset(&one, 0, sizeof one);
    one.n = 1;
    one.w[0] = before.w[0] & -before.w[0]; /* the lowest allowed PU (of the first 64) */
    int rc = Java_io_qv4j_agent_bind_NativeAffinity_setAffinity0(env, 0, 0, (jlongArray) &one, JNI_FALSE);
    get(env, &after);
    jint cpu = Java_io_qv4j_agent_bind_NativeAffinity_currentCpu0(env, 0);
    Java_io_qv4j_agent_bind_NativeAffinity_setAffinity0(env, 0, tid, (jlongArray) &before, JNI_FALSE);
    get(env, &restored);
    jint cpuid = Java_io_qv4j_agent_bind_NativeAffinity_cpuid0(env, 0, 0, 0, 0);
    printf("tid=%d before=0x%llx after=0x%llx cpu=%d restored=0x%llx cpuid=%d\n", tid, (unsigned long long) before.w[0],
           (unsigned long long) after.w[0], cpu, (unsigned long long) restored.w[0], cpuid);
    return rc == 0 && after.w[0] == one.w[0] && cpu >= 0 && cpu < 64 && (one.w[0] >> cpu) == 1 && restored.w[0] == before.w[0]
           && cpuid == 38 ? 0 : 1;
}
