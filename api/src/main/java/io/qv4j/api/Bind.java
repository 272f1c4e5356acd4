package io.qv4j.api;

import io.qv4j.topology.HwType;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The calling thread holds one piece of the JVM's PUs for the duration of the annotated method
 * and goes back to its exact previous binding afterwards (nested calls push and pop). Concurrent
 * callers of the same method get different pieces (the lowest free one; when there are more
 * callers than pieces they share). Read by the qv4j agent, matched by name: no agent, no effect.
 * Elements not written take the value of the global option (see {@link Placement}).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD})
public @interface Bind {

    /** Each piece is one object of this type. */
    HwType splitAt() default HwType.CORE;

    /** A regular split into this many pieces; 0 = use {@link #splitAt()}. */
    int split() default 0;

    /** How callers (0, 1, ... in order of arrival) map onto the pieces. */
    Color color() default Color.SPREAD;

    /** Every caller on this piece; -1 = use {@link #color()}. */
    int ordinal() default -1;
}
