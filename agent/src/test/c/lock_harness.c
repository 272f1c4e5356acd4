/*
 * The lock probe of the JNI library without a JVM (as affinity_harness.c): a probe of a plain
 * file gets its device and inode as stat gives them; the holder is 0 while nobody locks it, this
 * process's pid while this process holds a POSIX lock through another descriptor, and a child's
 * pid while the child holds one; a symbolic link (ELOOP), a FIFO (EINVAL: not a plain file) and a
 * missing file (ENOENT) get no probe; a probe is retired (closed) only once its file is deleted,
 * kept while it is linked. Prints "free=0 own=1 child=1 after=0 link=-40 fifo=-22 none=-2
 * linked=1 deleted=0 closed=1" and exits 0 when all of that held.
 */
#include <jni.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

JNIEXPORT jint JNICALL Java_io_qv4j_agent_bind_NativeAffinity_lockProbe0(JNIEnv *, jclass, jbyteArray, jlongArray);
JNIEXPORT jint JNICALL Java_io_qv4j_agent_bind_NativeAffinity_lockHolder0(JNIEnv *, jclass, jint, jintArray);
JNIEXPORT jint JNICALL Java_io_qv4j_agent_bind_NativeAffinity_retireLockProbe0(JNIEnv *, jclass, jint);

struct bytes { jsize n; char b[256]; };
struct longs { jlong w[2]; };
struct ints { jint w[1]; };

static jsize JNICALL length(JNIEnv *env, jarray a) { return ((struct bytes *) a)->n; }
static void JNICALL bytes(JNIEnv *env, jbyteArray a, jsize at, jsize n, jbyte *to) { memcpy(to, ((struct bytes *) a)->b + at, n); }
static void JNICALL set_longs(JNIEnv *env, jlongArray a, jsize at, jsize n, const jlong *from) { memcpy(((struct longs *) a)->w + at, from, n * 8); }
static void JNICALL set_ints(JNIEnv *env, jintArray a, jsize at, jsize n, const jint *from) { memcpy(((struct ints *) a)->w + at, from, n * 4); }

static const struct JNINativeInterface_ fns = {
    .GetArrayLength = length,
    .GetByteArrayRegion = bytes,
    .SetLongArrayRegion = set_longs,
    .SetIntArrayRegion = set_ints,
};
static const struct JNINativeInterface_ *table = &fns;
static JNIEnv *env = &table;

static jint probe(const char *path, struct longs *key) {
    struct bytes p;
    p.n = (jsize) strlen(path);
    memcpy(p.b, path, p.n);
    return Java_io_qv4j_agent_bind_NativeAffinity_lockProbe0(env, 0, (jbyteArray) &p, (jlongArray) key);
}

static jint holder(jint fd) {
    struct ints pid = {{-7}};
    jint rc = Java_io_qv4j_agent_bind_NativeAffinity_lockHolder0(env, 0, fd, (jintArray) &pid);
    return rc != 0 ? -1000 - rc : pid.w[0];
}

static int lock(int fd, short type) {
    struct flock l;
    memset(&l, 0, sizeof l);
    l.l_type = type;
    return fcntl(fd, F_SETLK, &l);
}

int main(void) {
    int mine = open("pu-0.lock", O_RDWR | O_CREAT, 0600);
    struct stat st;
    fstat(mine, &st);
    struct longs key = {{0, 0}};
    jint fd = probe("pu-0.lock", &key);
    int same = fd >= 0 && key.w[0] == (jlong) st.st_dev && key.w[1] == (jlong) st.st_ino;
    jint free = holder(fd);
    lock(mine, F_WRLCK);
    jint own = holder(fd);
    lock(mine, F_UNLCK);
    int ready[2];
    pipe(ready);
    pid_t child = fork();
    if (child == 0) {
        int c = open("pu-0.lock", O_RDWR);
        lock(c, F_RDLCK);
        write(ready[1], "x", 1);
        pause();
        _exit(0);
    }
    char x;
    read(ready[0], &x, 1);
    jint theirs = holder(fd);
    kill(child, SIGKILL);
    waitpid(child, 0, 0);
    jint after = holder(fd);
    symlink("pu-0.lock", "link.lock");
    mkfifo("fifo.lock", 0600);
    struct longs ignored;
    jint link = probe("link.lock", &ignored), fifo = probe("fifo.lock", &ignored), none = probe("none.lock", &ignored);
    jint linked = Java_io_qv4j_agent_bind_NativeAffinity_retireLockProbe0(env, 0, fd);
    int open_after_keep = fcntl(fd, F_GETFD) >= 0;
    unlink("pu-0.lock");
    jint deleted = Java_io_qv4j_agent_bind_NativeAffinity_retireLockProbe0(env, 0, fd);
    int closed = fcntl(fd, F_GETFD) < 0;
    printf("free=%d own=%d child=%d after=%d link=%d fifo=%d none=%d linked=%d deleted=%d closed=%d\n", free, own == getpid(), theirs == child,
           after, link, fifo, none, linked, deleted, closed);
    return same && free == 0 && own == getpid() && theirs == child && after == 0 && link == -40 && fifo == -22 && none == -2
            && linked == 1 && open_after_keep && deleted == 0 && closed ? 0 : 1;
}
