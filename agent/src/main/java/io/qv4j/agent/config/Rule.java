package io.qv4j.agent.config;

import java.util.regex.Pattern;

/**
 * A named rule of the config file: what it matches (every given match key must match) and its policy.
 *
 * @param thread     glob on the name of the pool's first worker; null = any
 * @param poolClass  glob on the pool's class name; null = any
 * @param creator    glob on {@code class#method} of the code that made the pool; null = any
 * @param commonPool true: the rule may match the common ForkJoinPool (and pins it); false: never
 * @param weight     the rule's share of the JVM scope (its pools are planned on that share); NaN = none
 * @param tasks      how many threads a group of plain threads the rule names has (its T); 0 = not said
 */
public record Rule(String name, String where, Pattern thread, Pattern poolClass, Pattern creator,
                   boolean commonPool, Policy policy, double weight, int tasks) {

    /**
     * Whether the rule names a plain thread (one that is no pool's worker): by its name, by its
     * class ({@code match.class} is then the thread's class); a rule that asks for the creating
     * code or the common pool names pools only.
     */
    public boolean matchesThread(String threadName, String threadClass) {
        if (creator != null || commonPool || (thread == null && poolClass == null)) return false;
        if (thread != null && !thread.matcher(threadName).matches()) return false;
        return poolClass == null || poolClass.matcher(threadClass).matches();
    }

    public boolean matches(String threadName, String cls, String creatorClassMethod, boolean common) {
        if (common && !commonPool) return false;
        if (thread == null && poolClass == null && creator == null) return common; // only "common-pool=on"
        if (thread != null && (threadName == null || !thread.matcher(threadName).matches())) return false;
        if (poolClass != null && (cls == null || !poolClass.matcher(cls).matches())) return false;
        return creator == null || (creatorClassMethod != null && creator.matcher(creatorClassMethod).matches());
    }

    public boolean weighted() {
        return !Double.isNaN(weight);
    }

    /** A glob ({@code *} any run of characters, {@code ?} one character, the rest literal), matched in linear time: {@link Glob}. */
    public static Pattern glob(String g) {
        return Glob.of(g).toPattern();
    }
}
