package io.qv4j.agent.place;

import io.qv4j.agent.config.Rule;
import io.qv4j.agent.config.Rules;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which plain platform threads are the tasks of a split (DESIGN.md §6.2, thread groups): asked on
 * every platform thread that starts (from JVMTI's thread events, or from {@code Thread.run()}).
 * The rules that can name plain threads come first, then the recognizers. A thread nothing names
 * costs one lookup of its class (which recognizers may apply), one read of its task and, with
 * rules, matching its name; the agent's own threads, JDK-internal threads, pool workers (the pool
 * hooks place those) and virtual threads are never taken.
 */
final class ThreadSets {

    private static final String TPE_WORKER = "java.util.concurrent.ThreadPoolExecutor$Worker";
    private static final String FJ_WORKER = "java.util.concurrent.ForkJoinWorkerThread";

    private final Rule[] rules;
    private final ThreadRecognizer[] recognizers;
    private final ClassValue<ThreadRecognizer[]> byClass = new ClassValue<>() {
        @Override
        protected ThreadRecognizer[] computeValue(Class<?> c) {
            if (skipped(c)) return new ThreadRecognizer[0];
            List<ThreadRecognizer> out = new ArrayList<>();
            for (ThreadRecognizer r : recognizers) if (r.applies(c)) out.add(r);
            return out.toArray(new ThreadRecognizer[0]);
        }
    };
    /** One key per group, held for the JVM's life. */
    private final Map<String, GroupKey> keys = new ConcurrentHashMap<>();

    ThreadSets(Rules rules, boolean recognize) {
        List<Rule> r = new ArrayList<>();
        for (Rule x : rules.list()) if (namesThreads(x)) r.add(x);
        this.rules = r.toArray(new Rule[0]);
        this.recognizers = recognize
                ? new ThreadRecognizer[] {new NettyEventLoops(), new XnioIoThreads(), new TomcatThreads(), new JettyThreads()}
                : new ThreadRecognizer[0];
    }

    private static boolean namesThreads(Rule r) {
        return r.creator() == null && !r.commonPool() && (r.thread() != null || r.poolClass() != null);
    }

    /** The group {@code t} belongs to, or null (the common case: nothing names it). On {@code t} itself. */
    ThreadSet match(Thread t) {
        ThreadRecognizer[] rs = byClass.get(t.getClass());
        if (rs.length == 0 && rules.length == 0) return null;
        Object task = ThreadTask.of(t);
        if (task != null && skippedTask(task.getClass().getName())) return null;
        if (rules.length > 0 && !skipped(t.getClass())) {
            String name = t.getName();
            for (Rule r : rules) {
                if (r.matchesThread(name, t.getClass().getName())) return byRule(r, name, t.getClass().getName());
            }
        }
        for (ThreadRecognizer r : rs) {
            ThreadSet g = r.recognize(t, task);
            if (g != null) return g;
        }
        return null;
    }

    /** The registry key of a group: the same instance for the same key. */
    GroupKey key(ThreadSet g) {
        return keys.computeIfAbsent(g.key(), GroupKey::new);
    }

    /** A rule's group: its name and the thread name without its trailing number; that number − 1 is the slot. */
    private static ThreadSet byRule(Rule r, String name, String threadClass) {
        int slot = slot(name.substring(trailingDigits(name)));
        String prefix = prefix(name);
        if (prefix.isEmpty()) prefix = r.name();
        return new ThreadSet("rule:" + r.name() + ":" + prefix, prefix, threadClass, r.tasks(), slot, r, r.policy(), r.policy().source());
    }

    /**
     * A decimal string's value; -1 when empty, longer than 6 digits or not ASCII digits only (thread
     * factories write numbers with {@code Integer.toString}; {@code parseInt} alone would also take
     * a sign and other scripts' digits).
     */
    static int number(String digits) {
        if (digits.isEmpty() || digits.length() > 6) return -1;
        int n = 0;
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (!isAsciiDigit(c)) return -1;
            n = n * 10 + (c - '0');
        }
        return n;
    }

    /** The slot a thread name's trailing number asks for (numbers count from 1): that number − 1, or -1 (the lowest free one). */
    static int slot(String digits) {
        int n = number(digits);
        return n >= 1 ? n - 1 : -1;
    }

    /** A thread's name without its trailing number and the separator before it ({@code -_ #}): {@code reactor-http-nio-2} → {@code reactor-http-nio}. */
    static String prefix(String name) {
        String p = name.substring(0, trailingDigits(name));
        return !p.isEmpty() && "-_ #".indexOf(p.charAt(p.length() - 1)) >= 0 ? p.substring(0, p.length() - 1) : p;
    }

    /** Where the run of ASCII digits that ends {@code name} begins; {@code name.length()} when it ends in none. */
    static int trailingDigits(String name) {
        int d = name.length();
        while (d > 0 && isAsciiDigit(name.charAt(d - 1))) d--;
        return d;
    }

    /** The index of the dash when {@code name} ends in {@code -DIGITS} after at least one character, else -1. */
    static int dashNumber(String name) {
        int d = trailingDigits(name);
        return d < name.length() && d >= 2 && name.charAt(d - 1) == '-' ? d - 1 : -1;
    }

    private static boolean isAsciiDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /**
     * Threads of these classes are the JDK's or the agent's ({@code java.lang.Thread} itself is the
     * application's), or fork-join workers, the application's own subclasses too (the pool hooks
     * place those). By name: naming the worker class here would load it before its hooks are in.
     */
    private static boolean skipped(Class<?> c) {
        String cls = c.getName();
        return c != Thread.class && (cls.startsWith("java.") || cls.startsWith("jdk.") || cls.startsWith("sun.") || AgentClasses.isOurs(cls))
                || forkJoinWorker(c);
    }

    private static boolean forkJoinWorker(Class<?> c) {
        for (Class<?> s = c; s != null; s = s.getSuperclass()) {
            if (s.getName().equals(FJ_WORKER)) return true;
        }
        return false;
    }

    /** Whether {@code t} is a worker of a JDK pool, which the pool hooks place (or leave where its pool is). */
    static boolean poolWorker(Thread t) {
        if (forkJoinWorker(t.getClass())) return true;
        Object task = ThreadTask.of(t);
        return task != null && task.getClass().getName().equals(TPE_WORKER);
    }

    /** Tasks of these classes: a JDK pool's worker (placed by the pool hooks), the JDK's or the agent's own work. */
    private static boolean skippedTask(String cls) {
        return cls.equals(TPE_WORKER) || cls.startsWith("jdk.") || cls.startsWith("sun.") || cls.startsWith("java.lang.")
                || cls.startsWith("java.util.concurrent.ForkJoin") || AgentClasses.isOurs(cls);
    }
}
