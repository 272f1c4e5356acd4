package io.qv4j.api;

import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;

/**
 * A {@link Platform} that binds nothing: it keeps, per thread, the stack of bindings the thread
 * would have, and a history of every change, so tests and dry runs can check placement without
 * touching the operating system.
 *
 * <p>Bindings nest as a stack. {@link Binding#close()} puts the thread back on the binding it had
 * when that binding was made. Closing out of order is harmless: closing a binding that is not on
 * top also closes the ones made after it (as if they had been closed first, innermost first),
 * and closing a binding again does nothing. A binding may be closed from any thread; it always
 * acts on the thread that made it.
 */
public final class RecordingPlatform implements Platform {

    /** Thread {@code thread} is now bound to {@code cpus} (a bind, or a restore on close). */
    public record Event(String thread, CpuSet cpus) {
    }

    private final Topology topology;
    private final ThreadLocal<Deque<Frame>> stacks = ThreadLocal.withInitial(ArrayDeque::new);
    private final List<Event> history = new ArrayList<>();

    public RecordingPlatform(Topology topology) {
        this.topology = Objects.requireNonNull(topology, "topology");
    }

    @Override
    public Topology discover() {
        return topology;
    }

    /** @throws IllegalArgumentException when {@code cpus} is empty or has PUs outside the allowed set */
    @Override
    public Binding bind(CpuSet cpus) {
        Objects.requireNonNull(cpus, "cpus");
        if (cpus.isEmpty()) throw new IllegalArgumentException("cannot bind a thread to an empty cpuset");
        CpuSet outside = cpus.andNot(topology.allowed());
        if (!outside.isEmpty()) {
            throw new IllegalArgumentException("cannot bind to " + cpus + ": PUs " + outside
                    + " are outside the allowed set " + topology.allowed());
        }
        Deque<Frame> stack = stacks.get();
        Frame frame = new Frame(cpus, stack, Thread.currentThread().getName());
        synchronized (stack) { // history order must match stack order, even with closes from other threads
            stack.push(frame);
            record(frame.thread, cpus);
        }
        return frame;
    }

    @Override
    public CpuSet currentBinding() {
        Deque<Frame> stack = stacks.get();
        synchronized (stack) {
            return top(stack);
        }
    }

    /** Every binding change so far, in order, from all threads. */
    public List<Event> history() {
        synchronized (history) {
            return List.copyOf(history);
        }
    }

    private CpuSet top(Deque<Frame> stack) {
        Frame f = stack.peek();
        return f == null ? topology.allowed() : f.cpus;
    }

    private void record(String thread, CpuSet cpus) {
        synchronized (history) {
            history.add(new Event(thread, cpus));
        }
    }

    private final class Frame implements Binding {
        final CpuSet cpus;
        final Deque<Frame> stack;
        final String thread;

        Frame(CpuSet cpus, Deque<Frame> stack, String thread) {
            this.cpus = cpus;
            this.stack = stack;
            this.thread = thread;
        }

        @Override
        public CpuSet cpuset() {
            return cpus;
        }

        @Override
        public void close() {
            synchronized (stack) {
                if (!stack.contains(this)) return; // closed already, directly or with an outer binding
                while (stack.pop() != this) {
                    // bindings made after this one end with it
                }
                record(thread, top(stack));
            }
        }

        @Override
        public String toString() {
            return "binding[" + thread + " -> " + cpus + "]";
        }
    }
}
