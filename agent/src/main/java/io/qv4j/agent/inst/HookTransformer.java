package io.qv4j.agent.inst;

import io.qv4j.agent.boot.QvHooks;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A plain transformer for the four boot classes, or the three of them other than {@code Thread}
 * where JVMTI's thread events tell of plain threads instead ({@link Boot#install}). It inserts
 * {@code ALOAD 0; INVOKESTATIC java/util/concurrent/QvHooks.x(Object)} at method entry or before
 * each return ({@link #hooks()} lists them; the names are constants of {@link QvHooks}): no
 * branches, so stack map frames stay valid. The rewrite itself is {@link HookRewriter}'s (ASM); a
 * rewrite an earlier run kept in the {@link ClassCache} is used as it is, and then ASM is never
 * loaded.
 */
public final class HookTransformer implements ClassFileTransformer {

    public static final String TPE = "java/util/concurrent/ThreadPoolExecutor";
    public static final String FJP = "java/util/concurrent/ForkJoinPool";
    public static final String FJWT = "java/util/concurrent/ForkJoinWorkerThread";
    public static final String FJWQ = "java/util/concurrent/ForkJoinPool$WorkQueue";
    public static final String THREAD = "java/lang/Thread";
    public static final Set<String> TARGETS = Set.of(TPE, FJP, FJWT, FJWQ, THREAD);
    /** The targets where JVMTI's thread events, not a hook in {@code Thread.run()}, tell of plain threads. */
    static final Set<String> POOL_CLASSES = Set.of(TPE, FJP, FJWT, FJWQ);

    /** Where a hook goes: a method (any descriptor when null), the hook at its entry and before its returns. */
    static final class Site {
        final String owner;
        final String method;
        final String desc;
        final String enter;
        final String exit;

        Site(String owner, String method, String desc, String enter, String exit) {
            this.owner = owner;
            this.method = method;
            this.desc = desc;
            this.enter = enter;
            this.exit = exit;
        }
    }

    /** Every hook this transformer inserts, and where. All hooks take the instance: descriptor {@link QvHooks#OBJECT_HOOK}. */
    private static final Site[] SITES = {
        new Site(TPE, "<init>", null, null, QvHooks.POOL_CREATED_HOOK),
        new Site(TPE, "runWorker", "(Ljava/util/concurrent/ThreadPoolExecutor$Worker;)V", QvHooks.WORKER_START_HOOK, null),
        new Site(TPE, "processWorkerExit", "(Ljava/util/concurrent/ThreadPoolExecutor$Worker;Z)V", QvHooks.WORKER_EXIT_HOOK, null),
        new Site(TPE, "getTask", "()Ljava/lang/Runnable;", QvHooks.GET_TASK_HOOK, null),
        new Site(FJP, "<init>", null, null, QvHooks.POOL_CREATED_HOOK),
        new Site(FJWT, "run", "()V", QvHooks.FJ_START_HOOK, QvHooks.FJ_EXIT_HOOK),
        // a fork/join worker's per-task point, where one the watcher moved binds itself again (its
        // memory policy with it); JDK 17's (ForkJoinTask, WorkQueue) and 25's (ForkJoinTask, int) alike
        new Site(FJWQ, "topLevelExec", null, QvHooks.FJ_TASK_HOOK, null),
        // where every platform thread whose class does not override run() starts (JDK 17 and 25
        // alike: the VM's thread entry calls run() virtually); virtual threads never come here
        new Site(THREAD, "run", "()V", QvHooks.THREAD_START_HOOK, QvHooks.THREAD_EXIT_HOOK),
    };

    private final String hooks;
    private final ClassCache cache;
    private final Set<String> targets;
    /** Class → the hooks inserted into it (e.g. "getTask runWorker"): for the log and the tests. */
    private final Map<String, String> done = new ConcurrentHashMap<>();
    /** How many of the classes came from the cache. */
    private final AtomicInteger cached = new AtomicInteger();
    private volatile Throwable failure;

    public HookTransformer(String hooksInternalName) {
        this(hooksInternalName, ClassCache.NONE, TARGETS);
    }

    /** @param targets the classes to rewrite: {@link #TARGETS}, or {@link #POOL_CLASSES} */
    HookTransformer(String hooksInternalName, ClassCache cache, Set<String> targets) {
        this.hooks = hooksInternalName;
        this.cache = cache;
        this.targets = targets;
    }

    /** The hook methods this transformer can insert calls to (on the hook class it is given). */
    public static List<HookMethod> hooks() {
        List<HookMethod> out = new ArrayList<>();
        for (Site s : SITES) {
            for (String h : new String[] {s.enter, s.exit}) {
                HookMethod m = new HookMethod(h, QvHooks.OBJECT_HOOK);
                if (h != null && !out.contains(m)) out.add(m);
            }
        }
        return out;
    }

    /** The hook site of a non-static method, or null. */
    static Site site(String owner, String name, String desc) {
        for (Site s : SITES) {
            if (s.owner.equals(owner) && s.method.equals(name) && (s.desc == null || s.desc.equals(desc))) return s;
        }
        return null;
    }

    public Map<String, String> done() {
        return done;
    }

    public Throwable failure() {
        return failure;
    }

    /** For the log: how the classes were made ("rewritten", "from the cache", or both counted). */
    public String source() {
        int n = done.size();
        int c = cached.get();
        return c == 0 ? "rewritten" : c == n ? "from the cache" : c + " from the cache, " + (n - c) + " rewritten";
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain pd, byte[] bytes) {
        if (loader != null || className == null || !targets.contains(className)) return null;
        try {
            return instrument(className, bytes);
        } catch (Throwable t) {
            failure = t;
            return null;
        }
    }

    byte[] instrument(String className, byte[] bytes) {
        String dotted = className.replace('/', '.');
        ClassCache.Entry hit = cache.get(className, bytes);
        if (hit != null) {
            cached.incrementAndGet();
            done.put(dotted, hit.note());
            return hit.bytes();
        }
        StringBuilder inserted = new StringBuilder();
        byte[] out = HookRewriter.insertHooks(className, bytes, hooks, inserted);
        String note = inserted.toString().strip();
        done.put(dotted, note);
        cache.put(className, bytes, out, note);
        return out;
    }
}
