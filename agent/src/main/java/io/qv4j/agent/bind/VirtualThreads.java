package io.qv4j.agent.bind;

import io.qv4j.agent.log.Log;

/**
 * Binding a virtual thread would bind the carrier it happens to run on, and leave that carrier
 * bound for every other virtual thread it runs: binding calls made on a virtual thread
 * ({@code Scope.bind()}, {@code @Bind}, {@code QvExecutors} workers) do nothing but say so, once.
 */
public final class VirtualThreads {

    private VirtualThreads() {
    }

    /** True on a virtual thread ({@code Thread.isVirtual()} is JDK 21+; the agent is compiled for 17). */
    public static boolean current() {
        return isVirtual(Thread.currentThread());
    }

    /** {@code java.lang.VirtualThread} and the JDK's other virtual kinds. */
    public static boolean isVirtual(Thread t) {
        String n = t.getClass().getName();
        return n.startsWith("java.lang.") && n.endsWith("VirtualThread");
    }

    /** Says once per kind of call that {@code what} on a virtual thread is not bound. */
    public static void skipped(String what) {
        Log.once("virtual:" + what, what + " on a virtual thread: not bound (binding it would pin its carrier for every other virtual thread)");
    }
}
