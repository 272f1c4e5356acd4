package io.qv4j.agent.place;

import io.qv4j.agent.config.Policy;
import io.qv4j.agent.config.Rule;
import io.qv4j.split.Slots;
import io.qv4j.topology.CpuSet;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;

/**
 * One pool the hooks have seen: where it was made, whether it is pinned and why, its slots. Held
 * in the {@link PoolRegistry}; fields change under the registry's lock only, the getters are for
 * the report.
 */
public final class Pool {

    final int id;
    final WeakReference<Object> ref;
    final String type;
    final Eligibility.Origin origin;
    final Eligibility.Creator creator;
    /** From an annotation (at creation, or a field assignment), else from the matching rule; null = the options. */
    Policy policy;
    Rule rule;
    String name;
    boolean decided;
    boolean planned;
    boolean pinned;
    String reason;
    int tasks;                 // -1: unbounded
    boolean grows;             // a group of plain threads of unknown size: planned again for each thread beyond its plan
    Slots slots;               // null until planned (and for unbounded pools)
    CpuSet scope;              // what threads without a slot get
    /** What the pool was planned on (in words only when asked: a plan formats nothing). */
    CpuSet universe;
    /** The piece of the thread that made the pool when qv4j had placed it: the pool splits that. Null = the JVM scope. */
    CpuSet parent;
    /** Some piece would have got more workers than PUs: those workers share the pool scope. */
    boolean oversubscribed;
    /** The virtual-thread scheduler's carriers, bound to the {@code carriers=} scope. */
    boolean carriers;
    boolean shares;
    /** Its workers have cores of their own (DESIGN.md §7.2): planned so, not merely asked. */
    boolean exclusive;
    /** Where its workers' new pages go (DESIGN.md §7.3): its rule's or annotation's word, else the option's. */
    io.qv4j.api.Memory memory = io.qv4j.api.Memory.LOCAL;
    /** Others kept its PUs busy (at planning, or while watched): its workers share its scope until they are gone. */
    boolean released;
    /** How often it was released: each release doubles the quiet time it needs to be pinned again. */
    int releases;
    int started;
    /** Among the registry's ended pools, out of planning's walk ({@link PoolRegistry#current}). */
    boolean ended;
    final List<Worker> workers = new ArrayList<>();

    Pool(int id, Object pool, Eligibility.Origin origin, Eligibility.Creator creator) {
        this(id, pool, origin, creator, pool.getClass().getName());
    }

    /** A group of plain threads ({@link ThreadSet}): {@code type} says what its threads are. */
    Pool(int id, Object pool, Eligibility.Origin origin, Eligibility.Creator creator, String type) {
        this.id = id;
        this.ref = new WeakReference<>(pool);
        this.type = type;
        this.origin = origin;
        this.creator = creator;
    }

    /** A group of plain threads, not a pool object. */
    boolean group() {
        return ref.get() instanceof GroupKey;
    }

    /**
     * Not collected and not shut down. A pool whose class answers {@code isShutdown()} itself is
     * not asked ({@link PoolState}): it is alive until its started workers have all ended.
     */
    boolean alive() {
        Object p = ref.get();
        if (!(p instanceof ExecutorService e)) return p != null;
        if (PoolState.asked(e)) return !e.isShutdown();
        for (Worker w : workers) if (!w.exited) return true;
        return workers.isEmpty();
    }

    /** Gone for good: not alive and no live worker. */
    boolean gone() {
        if (alive()) return false;
        for (Worker w : workers) if (!w.exited) return false;
        return true;
    }

    public int id() {
        return id;
    }

    /**
     * Its workers' name without their number, from the first one; the common pool's name before
     * that: it starts no worker until something uses it, and shows in the report all the same.
     */
    public String name() {
        if (name == null && ref.get() instanceof ForkJoinPool fj && fj == ForkJoinPool.commonPool()) return "ForkJoinPool.commonPool";
        return name;
    }

    public String type() {
        return type;
    }

    public String origin() {
        return origin.name().toLowerCase(java.util.Locale.ROOT);
    }

    public String creator() {
        return creator.text();
    }

    public boolean decided() {
        return decided;
    }

    public boolean pinned() {
        return pinned;
    }

    public String reason() {
        return reason;
    }

    public Policy policy() {
        return policy;
    }

    public String rule() {
        return rule == null ? null : rule.name();
    }

    /**
     * What the pool says it has done: a {@code ThreadPoolExecutor}'s completed tasks, a
     * {@code ForkJoinPool}'s steals; -1 for a group of plain threads, a pool gone or one whose
     * class answers that itself ({@link PoolState}). Takes the pool's own lock briefly: asked only
     * when a report is made.
     */
    public long completedTasks() {
        Object p = ref.get();
        return p == null ? -1 : PoolState.completed(p);
    }

    public int tasks() {
        return tasks;
    }

    public Slots slots() {
        return slots;
    }

    public CpuSet scope() {
        return scope;
    }

    public String universe() {
        return universe == null ? null : universe.toString();
    }

    public CpuSet parent() {
        return parent;
    }

    public boolean oversubscribed() {
        return oversubscribed;
    }

    public boolean sharesPus() {
        return shares;
    }

    /** Its workers have cores no other thread of the application is given (DESIGN.md §7.2). */
    public boolean exclusive() {
        return exclusive;
    }

    /** Where its workers' new pages go (DESIGN.md §7.3). */
    public io.qv4j.api.Memory memory() {
        return memory;
    }

    /** Released to its scope because others keep its PUs busy (DESIGN.md §7.1). */
    public boolean released() {
        return released;
    }

    public int started() {
        return started;
    }

    public List<Worker> workers() {
        return Collections.unmodifiableList(workers);
    }
}
