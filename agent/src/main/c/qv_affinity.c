/*
 * The agent's native binding: sched_setaffinity/sched_getaffinity and gettid through JNI.
 * Loading it costs about a millisecond, where JNA plus OpenHFT cost 130-170 ms in a cold JVM,
 * more than the agent's whole start-up budget. Masks are Java long[] words (BitSet.toLongArray
 * layout), which is the kernel's cpumask layout on 64-bit Linux.
 */
#define _GNU_SOURCE
#include <jni.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define STACK_WORDS 128 /* 8192 CPUs without malloc */

JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_setAffinity0(JNIEnv *env, jclass cls, jint tid, jlongArray mask) {
    jsize n = (*env)->GetArrayLength(env, mask);
    jlong stack[STACK_WORDS];
    jlong *words = n <= STACK_WORDS ? stack : malloc((size_t) n * sizeof(jlong));
    if (words == NULL) return ENOMEM;
    (*env)->GetLongArrayRegion(env, mask, 0, n, words);
    int rc = sched_setaffinity((pid_t) tid, (size_t) n * sizeof(jlong), (cpu_set_t *) words) == 0 ? 0 : errno;
    if (words != stack) free(words);
    return rc;
}

/* The thread's mask into {@code mask} (sized by the caller); returns 0 or errno. */
JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_getAffinity0(JNIEnv *env, jclass cls, jint tid, jlongArray mask) {
    jsize n = (*env)->GetArrayLength(env, mask);
    jlong stack[STACK_WORDS];
    jlong *words = n <= STACK_WORDS ? stack : malloc((size_t) n * sizeof(jlong));
    if (words == NULL) return ENOMEM;
    memset(words, 0, (size_t) n * sizeof(jlong));
    int rc = sched_getaffinity((pid_t) tid, (size_t) n * sizeof(jlong), (cpu_set_t *) words) == 0 ? 0 : errno;
    if (rc == 0) (*env)->SetLongArrayRegion(env, mask, 0, n, words);
    if (words != stack) free(words);
    return rc;
}

JNIEXPORT jint JNICALL
Java_io_qv4j_agent_bind_NativeAffinity_gettid0(JNIEnv *env, jclass cls) {
    return (jint) syscall(SYS_gettid);
}
