package io.qv4j.api;

import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Device;
import io.qv4j.topology.Topology;

import java.util.List;
import java.util.Objects;

/**
 * Some resources held by a group of tasks: a set of allowed PUs of one topology and the devices
 * that belong to it (DESIGN.md §1, §4). Immutable. Splits cut a scope into pieces; mapping tasks
 * onto pieces is done by {@link Split}.
 */
public final class Scope {

    private final Topology topology;
    private final CpuSet cpuset;
    private final List<io.qv4j.topology.Device> devices;

    private Scope(Topology topology, CpuSet cpuset, List<Device> devices) {
        this.topology = topology;
        this.cpuset = cpuset;
        this.devices = List.copyOf(devices);
    }

    /** The whole allowed part of the machine, with every device that has an allowed PU in its locality. */
    public static Scope of(Topology topology) {
        throw new UnsupportedOperationException("TODO");
    }

    /**
     * The given PUs (cut to the allowed set) with the devices whose locality intersects them.
     *
     * @throws IllegalArgumentException when no allowed PU is left, naming both sets
     */
    public static Scope of(Topology topology, CpuSet cpus) {
        throw new UnsupportedOperationException("TODO");
    }

    public Topology topology() {
        return topology;
    }

    /** The allowed PUs of this scope. Never empty. */
    public CpuSet cpuset() {
        return cpuset;
    }

    /** The devices owned by this scope, GPUs then NICs. */
    public List<Device> devices() {
        return devices;
    }

    /** The devices of one type owned by this scope. */
    public List<Device> devices(HwType type) {
        throw new UnsupportedOperationException("TODO");
    }

    /** How many objects of a type have allowed PUs in this scope (devices: how many it owns). */
    public int count(HwType type) {
        throw new UnsupportedOperationException("TODO");
    }

    /** Regular split into {@code pieces} parts of equal size (DESIGN.md §4.1). */
    public Split split(int pieces) {
        throw new UnsupportedOperationException("TODO");
    }

    /** One piece per object of {@code type} in this scope (DESIGN.md §4.2). */
    public Split splitAt(HwType type) {
        throw new UnsupportedOperationException("TODO");
    }

    /** A scope made of the first {@code n} objects of {@code type} in this scope (a "utility" scope). */
    public Scope create(HwType type, int n) {
        throw new UnsupportedOperationException("TODO");
    }

    /**
     * Binds the calling thread to this scope through {@link Platform#current()}; closing the
     * returned binding restores the thread's previous binding (push/pop).
     */
    public Binding bind() {
        return Platform.current().bind(cpuset);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Scope s && s.topology == topology && s.cpuset.equals(cpuset) && s.devices.equals(devices);
    }

    @Override
    public int hashCode() {
        return Objects.hash(cpuset, devices);
    }

    /** {@code scope[numa:1 cores:4 pus:0-3 gpus:1]}. */
    @Override
    public String toString() {
        throw new UnsupportedOperationException("TODO");
    }
}
