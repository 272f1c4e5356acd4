package io.qv4j.agent.bind;

import io.qv4j.topology.CpuSet;

/** A binder that never binds ({@link Binder#NONE}, {@link Binder#DRY_RUN}): what it says is its whole difference. */
final class Unbound implements Binder {

    private final String name;
    private final String outcome;

    Unbound(String name, String outcome) {
        this.name = name;
        this.outcome = outcome;
    }

    @Override
    public boolean bind(CpuSet cpus) {
        return false;
    }

    @Override
    public boolean binds() {
        return false;
    }

    @Override
    public String outcome(boolean bound) {
        return outcome;
    }

    @Override
    public String describe() {
        return name;
    }
}
