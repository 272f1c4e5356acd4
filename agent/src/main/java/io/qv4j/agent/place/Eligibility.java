package io.qv4j.agent.place;

import io.qv4j.agent.bind.VirtualThreads;
import io.qv4j.agent.config.Options;
import io.qv4j.agent.config.Rule;
import io.qv4j.agent.config.Rules;
import io.qv4j.agent.log.Log;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Which pools are pinned (DESIGN.md §6.2): an annotation or a rule names the pool, else
 * {@code pools=} globs, else every application pool; JDK-internal pools, the agent's own, pools
 * of unknown origin and single housekeeping threads ({@link #HOUSEKEEPING}) stay unpinned; the
 * common pool only when asked. Decided once per pool, when its
 * first worker starts, without the environment.
 */
final class Eligibility {

    /** Where a pool was made. */
    enum Origin { APPLICATION, JDK, AGENT, UNKNOWN }

    /**
     * Where a pool was made: the first frame below the hook, the pool's own constructors,
     * {@code Executors} and reflection's frames.
     */
    record Creator(String className, String key, StackTraceElement frame, String fixed) {

        static final Creator UNKNOWN = new Creator(null, null, null, "?");
        static final Creator UNKNOWN_BEFORE_AGENT = new Creator(null, null, null, "? (made before the agent started)");

        String text() {
            return frame == null ? fixed
                    : className + "." + frame.getMethodName() + "(" + frame.getFileName() + ":" + frame.getLineNumber() + ")";
        }
    }

    private final Options options;
    private final Rules rules;
    private final List<Pattern> globs = new ArrayList<>();

    Eligibility(Options options, Rules rules) {
        this.options = options;
        this.rules = rules;
        for (String g : options.pools()) globs.add(Rule.glob(g));
    }

    static Origin originOf(String cls) {
        if (cls == null) return Origin.UNKNOWN;
        if (AgentClasses.isOurs(cls)) return Origin.AGENT;
        if (cls.startsWith("java.") || cls.startsWith("jdk.") || cls.startsWith("sun.") || cls.startsWith("com.sun.")) return Origin.JDK;
        return Origin.APPLICATION;
    }

    /**
     * The frame that made {@code pool}, on the creating thread. Read from the JVM's frames through
     * the JNI library ({@link CallSites}: each call site named once), else from a throwable's stack
     * trace, which names the whole stack each time; not with a StackWalker: a cold JVM's first walk
     * costs about 2 ms on JDK 17 and 12 ms on JDK 25, which builds its frames by reflection, on the
     * thread that makes the pool. Where the JVM keeps no traces ({@code -XX:-StackTraceInThrowable})
     * or cuts them short, the walker finds the frame.
     */
    static Creator creator(Object pool) {
        try {
            StackTraceElement[] frames = CallSites.innermost();
            StackTraceElement f = frames == null ? null : creatorFrame(frames, pool.getClass());
            if (f == null) f = creatorFrame(new Throwable().getStackTrace(), pool.getClass());
            if (f == null) f = walked(pool.getClass());
            return f == null ? Creator.UNKNOWN : new Creator(f.getClassName(), f.getClassName() + "#" + f.getMethodName(), f, null);
        } catch (Throwable t) {
            return Creator.UNKNOWN;
        }
    }

    /**
     * The first frame of {@code frames} (innermost first) below the agent's and the hook class's
     * that is not a constructor of {@code poolClass} or of a class it extends, not in
     * {@code Executors} and not reflection's (which a StackWalker hides): null when there is none.
     */
    static StackTraceElement creatorFrame(StackTraceElement[] frames, Class<?> poolClass) {
        boolean above = true;
        for (StackTraceElement f : frames) {
            String c = f.getClassName();
            if (above && (AgentClasses.isOurs(c) || c.equals("java.util.concurrent.QvHooks"))) continue;
            above = false;
            if (f.getMethodName().equals("<init>") && extendsOrIs(poolClass, c) || c.startsWith("java.util.concurrent.Executors") || reflective(c)) continue;
            return f;
        }
        return null;
    }

    private static boolean extendsOrIs(Class<?> k, String name) {
        for (; k != null; k = k.getSuperclass()) {
            if (k.getName().equals(name)) return true;
        }
        return false;
    }

    /**
     * The frames StackWalker leaves out unless asked to show reflection frames, and the method
     * handles' and lambdas' that a stack trace leaves out (the JVM's frames have them, {@link CallSites}).
     */
    private static boolean reflective(String c) {
        return c.equals("java.lang.reflect.Method") || c.equals("java.lang.reflect.Constructor") || c.startsWith("jdk.internal.reflect.")
                || c.startsWith("java.lang.invoke.") || c.contains("$$Lambda");
    }

    /** The creator frame through a StackWalker, for a JVM whose throwables carry no whole trace. */
    static StackTraceElement walked(Class<?> poolClass) {
        // an anonymous class, not a lambda: the first lambda of a cold JVM costs milliseconds
        return StackWalker.getInstance().walk(new Function<Stream<StackWalker.StackFrame>, StackTraceElement>() {
            @Override
            public StackTraceElement apply(Stream<StackWalker.StackFrame> s) {
                List<StackTraceElement> frames = new ArrayList<>();
                for (Iterator<StackWalker.StackFrame> it = s.iterator(); it.hasNext(); ) frames.add(it.next().toStackTraceElement());
                return creatorFrame(frames.toArray(new StackTraceElement[0]), poolClass);
            }
        });
    }

    /** Decides whether {@code p}'s workers are pinned, and why; {@code size}: its {@link #tasks}, read before the lock. Under the registry's lock. */
    void decide(Pool p, Thread first, int size) {
        p.decided = true;
        p.name = poolName(first.getName());
        Object pool = p.ref.get();
        boolean common = pool instanceof ForkJoinPool fj && fj == ForkJoinPool.commonPool();
        p.tasks = size;
        if (p.policy == null) {
            p.rule = rules.match(first.getName(), p.type, p.creator.key(), common);
            if (p.rule != null) p.policy = p.rule.policy();
        }
        if (options.bind() == Options.Bind.OFF) {
            p.reason = "bind=off";
        } else if (isVirtual(first)) {
            p.reason = "its threads are virtual: binding one would pin its carrier";
        } else if (madeByQvExecutors(pool)) {
            p.policy = null;
            p.reason = "placed by QvExecutors";
        } else if (options.carriers() != null && isCarrierPool(p, first)) {
            p.carriers = true;
            p.pinned = true;
            p.tasks = -1; // the carrier pool grows when virtual threads block: one scope, never one PU each
            p.reason = "virtual-thread carriers (carriers=" + options.carriers() + ")";
        } else if (p.policy != null && p.origin != Origin.AGENT) {
            p.pinned = true;
            p.reason = p.policy.source();
        } else if (common) {
            p.pinned = options.commonPool();
            p.reason = options.commonPool() ? "common pool (common-pool=on)" : "common pool (common-pool=off)";
        } else if (!globs.isEmpty()) {
            boolean named = false;
            for (Pattern g : globs) named |= g.matcher(first.getName()).matches();
            p.pinned = named && p.origin != Origin.AGENT;
            p.reason = p.pinned ? "named by pools=" : "not named by pools=";
        } else if (p.origin == Origin.APPLICATION && p.tasks == 1 && housekeeping(first.getName()) != null) {
            p.pinned = false;
            p.reason = "housekeeping thread (its name says '" + housekeeping(first.getName()) + "'): a rule pins it";
        } else {
            p.pinned = p.origin == Origin.APPLICATION;
            p.reason = switch (p.origin) {
                case APPLICATION -> "application pool";
                case JDK -> "JDK-internal pool";
                case AGENT -> "agent pool";
                case UNKNOWN -> "pool of unknown origin";
            };
        }
        if (Log.isVerbose()) {
            String policy = PoolPlanner.policyOf(p, options).toString();
            Log.debug("pool " + p.name + ": " + (p.pinned && p.policy != null ? policy + " from " + p.policy.source()
                    : p.pinned ? policy + " from the options (" + p.reason + ")" : "not pinned (" + p.reason + ")"));
        }
    }

    /**
     * What frameworks call the one thread that wakes now and then to tidy up (Reactor's
     * {@code boundedElastic-evictor}, Vert.x's {@code vertx-blocked-thread-checker}, gRPC's
     * {@code grpc-shared-destroyer}, Netty's {@code HashedWheelTimer}): pinned, such a thread would
     * claim a core node-wide for work that is idle nearly all the time.
     */
    static final String[] HOUSEKEEPING = {"evictor", "checker", "destroyer", "reaper", "cleaner", "housekeep", "watchdog",
                                          "janitor", "scavenger", "expir", "timer"};

    /** The housekeeping word in a thread's name (case ignored), or null. */
    static String housekeeping(String threadName) {
        String n = threadName.toLowerCase(java.util.Locale.ROOT);
        for (String w : HOUSEKEEPING) if (n.contains(w)) return w;
        return null;
    }

    /** {@code java.lang.VirtualThread} and the bound kind ({@code Thread.isVirtual()} is JDK 21+; we compile for 17). */
    static boolean isVirtual(Thread t) {
        return VirtualThreads.isVirtual(t);
    }

    /** The virtual-thread scheduler's pool: made by {@code java.lang.VirtualThread}, or run by the JDK's carrier threads. */
    static boolean isCarrierPool(Pool p, Thread first) {
        return "java.lang.VirtualThread".equals(p.creator.className()) || first.getClass().getName().equals("jdk.internal.misc.CarrierThread");
    }

    private static boolean madeByQvExecutors(Object pool) {
        return pool instanceof ThreadPoolExecutor t && PoolState.asked(t) && t.getThreadFactory().getClass().getName().startsWith("io.qv4j.api.QvExecutors");
    }

    /** T: FJ parallelism; TPE core size, else max size if bounded; -1 = unbounded. */
    static int tasks(Object pool) {
        if (pool instanceof ForkJoinPool fj) return Math.max(1, fj.getParallelism());
        if (pool instanceof ThreadPoolExecutor tpe) {
            if (tpe.getCorePoolSize() > 0) return tpe.getCorePoolSize();
            return tpe.getMaximumPoolSize() == Integer.MAX_VALUE ? -1 : tpe.getMaximumPoolSize();
        }
        return -1;
    }

    /** {@code pool-1-thread-3} → {@code pool-1}; {@code app-7}, {@code app_7}, {@code app 7}, {@code app#7}, {@code app7} → {@code app}. */
    static String poolName(String thread) {
        int d = ThreadSets.trailingDigits(thread);
        if (d == thread.length()) return thread;
        int end = d >= 8 && (thread.startsWith("-thread-", d - 8) || thread.startsWith("-worker-", d - 8)) ? d - 8
                : d > 0 && "-_ #".indexOf(thread.charAt(d - 1)) >= 0 ? d - 1 : d;
        return end == 0 ? thread : thread.substring(0, end);
    }
}
