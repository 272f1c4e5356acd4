package io.qv4j.agent.place;

import io.qv4j.agent.bind.Binder;
import io.qv4j.topology.CpuSet;

import java.util.ArrayList;
import java.util.List;

/** Binds nothing, remembers every cpuset it was asked for, in order. */
final class RecordingBinder implements Binder {

    final List<CpuSet> calls = new ArrayList<>();

    @Override
    public synchronized boolean bind(CpuSet cpus) {
        calls.add(cpus);
        return true;
    }

    /** Other threads bound by tid, in order: {@code tid cpus}. */
    final List<String> others = new ArrayList<>();

    /** Run once, at the next {@link #bindThread}, before it is recorded: something that happens meanwhile. */
    Runnable atNextBindThread;

    @Override
    public boolean bindThread(long tid, CpuSet cpus) {
        Runnable r;
        synchronized (this) {
            r = atNextBindThread;
            atNextBindThread = null;
        }
        if (r != null) r.run();
        synchronized (this) {
            others.add(tid + " " + cpus);
        }
        return true;
    }

    /** Memory policies set, in order: {@code BIND 0-1}; {@link #memoryAnswer} is what each call returns. */
    final List<String> memory = new ArrayList<>();
    int memoryAnswer;

    @Override
    public synchronized int bindMemory(io.qv4j.api.Memory m, java.util.BitSet nodes) {
        memory.add(m + " " + CpuSet.of(nodes));
        return memoryAnswer;
    }

    /** What {@link #currentCpu} answers: the PU the calling thread is said to run on (-1: unknown). */
    volatile int cpu = -1;

    /** Run once, at the next {@link #currentCpu}: something that happens after a worker read the environment, before it plans. */
    volatile Runnable atNextCurrentCpu;

    @Override
    public int currentCpu() {
        Runnable r;
        synchronized (this) {
            r = atNextCurrentCpu;
            atNextCurrentCpu = null;
        }
        if (r != null) r.run();
        return cpu;
    }

    @Override
    public String describe() {
        return "recording";
    }
}
