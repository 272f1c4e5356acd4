package io.qv4j.api;

import io.qv4j.topology.HwType;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Where the workers of thread pools go, written where the pools are made. Read by the qv4j agent
 * (matched by name: no agent, no effect):
 * <ul>
 * <li>on a method or constructor: every {@code ThreadPoolExecutor} or {@code ForkJoinPool} built on
 * the calling thread while the call runs (through {@code Executors} factories and wrappers too);</li>
 * <li>on a class: pools built by its constructors, methods and static initialiser;</li>
 * <li>on a field of an executor type (instance or static): the pool assigned to it by code of the
 * declaring class.</li>
 * </ul>
 * The innermost annotation wins (field, then the innermost annotated call on the stack, which may be
 * a class-level one). Annotations beat the rules of the agent's config file, which beat the global
 * options. <b>Elements not written take the value of the matching rule, else of the global
 * option</b>: the agent reads what is written in the class file, so the defaults below only
 * matter to code that reads the annotation by reflection ({@link PlacementSpec#of(Placement)}).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
public @interface Placement {

    /** Each piece is one object of this type (option {@code split-at}). */
    HwType splitAt() default HwType.CORE;

    /** A regular split into this many pieces (option {@code split}); 0 = use {@link #splitAt()}. */
    int split() default 0;

    /** How workers (slots 0..T-1) map onto the pieces (option {@code color}). */
    Color color() default Color.SPREAD;

    /** An explicit piece for every worker (an ordinal color); -1 = use {@link #color()}. */
    int ordinal() default -1;

    /** Which CPU kinds the workers use on a hybrid machine (option {@code kind}). */
    Kind kind() default Kind.AUTO;

    /** Only the CPU kind of this efficiency rank, 0 the most energy-efficient (option {@code kind=N}); -1 = use {@link #kind()}. */
    int efficiency() default -1;

    /**
     * The workers get cores of their own (option {@code exclusive}): whole cores, SMT siblings left
     * idle, that no other pool or thread of the application and no other qv4j JVM is given;
     * kernel-isolated PUs first, one per worker. Refused (with one line) where it would leave the
     * rest of the JVM no PU.
     */
    boolean exclusive() default false;

    /** Where the workers' new memory pages go (option {@code memory}): the kernel's first touch, interleaved over the pool's nodes, or bound to each worker's nodes. */
    Memory memory() default Memory.LOCAL;
}
