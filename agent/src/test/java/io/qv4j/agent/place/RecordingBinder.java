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

    @Override
    public String describe() {
        return "recording";
    }
}
