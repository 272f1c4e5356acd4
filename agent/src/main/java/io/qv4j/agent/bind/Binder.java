package io.qv4j.agent.bind;

import io.qv4j.agent.io.UserFiles;
import io.qv4j.topology.CpuSet;

import java.nio.charset.StandardCharsets;

/** Binds the calling thread. */
public interface Binder {

    /** Binds the calling thread to {@code cpus}; false when it could not (already said once). */
    boolean bind(CpuSet cpus);

    /**
     * The JVM scope is now {@code scope}: the threads this binder places answer
     * {@code Runtime.availableProcessors()} as a thread bound to it does (DESIGN.md §7). Asked
     * again when the JVM's answer may have changed (a CPU quota). Returns that count; 0 where the
     * binder cannot (none, dry run, OpenHFT).
     */
    default int jvmScope(CpuSet scope) {
        return 0;
    }

    /**
     * Whether the calling thread's mask is still the one it started with (its creator's, read at
     * its thread-start event before any application code ran on it): false when something bound
     * it since; null when this binder cannot tell (DESIGN.md §6.2).
     */
    default Boolean keptStartMask() {
        return null;
    }

    /**
     * Binds thread {@code tid} of this process, not the caller: a group's plain thread has no later
     * hook at which to move itself when its group is planned again. False where this binder cannot.
     */
    default boolean bindThread(long tid, CpuSet cpus) {
        return false;
    }

    /**
     * Sets the calling thread's memory policy (DESIGN.md §7.3): {@code LOCAL} the kernel's default,
     * {@code BIND} or {@code INTERLEAVE} over NUMA nodes {@code nodes} (OS indexes). Returns 0, the
     * kernel's errno, or -1 where this binder cannot (only the JNI library can).
     */
    default int bindMemory(io.qv4j.api.Memory memory, java.util.BitSet nodes) {
        return -1;
    }

    /** What does the binding, for the report. */
    String describe();

    /** True when {@link #bind} changes the kernel's mask (false: none, dry run). */
    default boolean binds() {
        return true;
    }

    /** What a bind did, for a verbose line: {@code ""} (bound), {@code " (not bound)"}, {@code " (dry run)"}. */
    default String outcome(boolean bound) {
        return bound ? "" : " (not bound)";
    }

    /** The calling thread's kernel thread id, or -1. */
    default long currentTid() {
        try {
            String s = java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/thread-self")).toString();
            return Long.parseLong(s.substring(s.lastIndexOf('/') + 1));
        } catch (Throwable t) {
            return -1;
        }
    }

    /**
     * The PU the calling thread runs on now, or -1 where this binder cannot tell: a worker that
     * takes a slot whose piece holds it is bound without being moved (DESIGN.md §6.2).
     */
    default int currentCpu() {
        return -1;
    }

    /** The calling thread's kernel mask: from the JNI library when it is loaded, else {@code /proc}; null when unknown. */
    static CpuSet currentMask() {
        return mask(0);
    }

    /** Thread {@code tid}'s kernel mask (0: the calling thread's), as {@link #currentMask()} reads it; null when unknown or gone. */
    static CpuSet mask(long tid) {
        try {
            CpuSet c = NativeAffinity.affinity((int) tid);
            if (c != null) return c;
        } catch (Throwable notLoaded) {
            // the JNI library is not in use: read /proc
        }
        // java.io, not a file channel: a pending interrupt of the calling thread (an application's) would close one
        byte[] b = UserFiles.proc(tid == 0 ? "/proc/thread-self/status" : "/proc/self/task/" + tid + "/status");
        if (b == null) return null;
        String status = new String(b, StandardCharsets.ISO_8859_1);
        int at = status.indexOf("Cpus_allowed_list:");
        if (at < 0) return null;
        int end = status.indexOf('\n', at);
        try {
            return CpuSet.parse(status.substring(at + 18, end < 0 ? status.length() : end).strip());
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Binds nothing: bind=off, or native binding unavailable. */
    Binder NONE = new Unbound("none", " (not bound)");

    /** bind=dry-run: places and reports, never touches the kernel's masks. */
    Binder DRY_RUN = new Unbound("dry run", " (dry run)");
}
