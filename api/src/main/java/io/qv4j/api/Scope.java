package io.qv4j.api;

import io.qv4j.topology.HwType;
import io.qv4j.split.DeviceOwnership;
import io.qv4j.split.KindParts;
import io.qv4j.split.LogicalPus;
import io.qv4j.split.Pieces;
import io.qv4j.split.Shares;
import io.qv4j.split.Units;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Device;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.Topology;

import java.util.ArrayList;
import java.util.Arrays;
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
    private volatile int[] logicalPus; // the cpuset as sorted logical PU indexes, made on first use

    private Scope(Topology topology, CpuSet cpuset, List<Device> devices) {
        this.topology = topology;
        this.cpuset = cpuset;
        this.devices = List.copyOf(devices);
    }

    /** A piece made by the engine, which already knows its logical PUs. */
    static Scope of(Topology topology, int[] logicalPus, List<Device> devices) {
        Scope s = new Scope(topology, LogicalPus.of(topology).cpuset(logicalPus), devices);
        s.logicalPus = logicalPus;
        return s;
    }

    /** The whole allowed part of the machine, with every device that has an allowed PU in its locality. */
    public static Scope of(Topology topology) {
        return of(topology, topology.allowed());
    }

    /**
     * The given PUs (cut to the allowed set) with the devices whose locality intersects them.
     *
     * @throws IllegalArgumentException when no allowed PU is left, naming both sets
     */
    public static Scope of(Topology topology, CpuSet cpus) {
        CpuSet mine = cpus.and(topology.allowed());
        if (mine.isEmpty()) {
            throw new IllegalArgumentException("no allowed PU in " + (cpus.isEmpty() ? "an empty cpuset" : "PUs " + cpus)
                    + " (allowed: " + topology.allowed() + ")");
        }
        List<Device> near = new ArrayList<>();
        for (Device d : topology.devices()) if (d.locality().intersects(mine)) near.add(d);
        return new Scope(topology, mine, near);
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
        return Device.ofType(devices, type);
    }

    /** The PUs as sorted logical indexes (the engine's view of {@link #cpuset()}). */
    int[] logicalPus() {
        int[] l = logicalPus;
        if (l == null) logicalPus = l = LogicalPus.of(topology).logical(cpuset);
        return l;
    }

    /** How many objects of a type have allowed PUs in this scope (devices: how many it owns). */
    public int count(HwType type) {
        if (type.isDevice()) return devices(type).size();
        return objectRuns(type).size() / 2;
    }

    /** {@code [from, to)} ranges into {@link #logicalPus()}, one per object of {@code type}, flattened. */
    private List<Integer> objectRuns(HwType type) {
        LogicalPus index = LogicalPus.of(topology);
        int[] pus = logicalPus();
        List<Integer> runs = new ArrayList<>();
        HwObject current = null;
        for (int i = 0; i <= pus.length; i++) {
            HwObject o = i < pus.length ? index.objectOf(pus[i], type) : null;
            if (o == current) continue;
            if (current != null) runs.add(i);
            if (o != null) runs.add(i);
            current = o;
        }
        return runs;
    }

    /**
     * Regular split into {@code pieces} parts of equal size (DESIGN.md §4.1).
     *
     * @throws IllegalArgumentException when {@code pieces < 1} or above the PUs of this scope
     *                                  ({@code cannot split 4 PUs into 6 pieces})
     */
    public Split split(int pieces) {
        return new Split(topology, Pieces.regular(LogicalPus.of(topology), logicalPus(), devices, pieces), devices);
    }

    /**
     * Weighted split: one contiguous piece per weight, in order, each with a number of units
     * (cores, or PUs when there are more pieces than cores, as for {@link #split(int)})
     * proportional to its weight by largest remainders; every piece gets at least one unit. Where
     * the rounding leaves a choice (pieces tied on their remainders), the cuts go on the highest
     * hardware boundaries, as in a regular split (DESIGN.md §4.1), so equal weights give exactly
     * {@code split(weights.length)}. Weights are relative (loads, shares, CPU seconds); a weight of 0
     * still gets one unit. Devices go as in a regular split.
     *
     * <p>Not an overload of {@code split}: {@code split(3)} means three equal pieces, and an
     * overload {@code split(double...)} would make {@code split(3.0)} one piece and
     * {@code split(2, 1)} a weighted split of ints, a trap in both directions.
     *
     * @throws IllegalArgumentException without weights, for a negative, infinite or NaN weight
     *                                  (naming its index), when all are 0, or with more weights
     *                                  than PUs ({@code cannot split 4 PUs into 6 pieces})
     */
    public Split splitWeighted(double... weights) {
        return new Split(topology, Pieces.weighted(LogicalPus.of(topology), logicalPus(), devices, weights.clone()), devices);
    }

    /**
     * One piece per object of {@code type} in this scope (DESIGN.md §4.2).
     *
     * @throws IllegalArgumentException when the scope holds no such object, naming the type and this
     *                                  scope (and, for a cache level on a topology without caches,
     *                                  its {@code caches.note}: why there are none)
     */
    public Split splitAt(HwType type) {
        Pieces pieces = Pieces.at(LogicalPus.of(topology), logicalPus(), devices, type);
        if (pieces.count() == 0) {
            // a reader that found no caches says why (caches.note); the level alone would not tell the user
            String note = topology.info().get("caches.note");
            boolean noCaches = "none".equals(topology.info().get("caches.source")) && type.isCache();
            throw new IllegalArgumentException("cannot split at " + type.shortName() + ": no " + type.shortName() + " in " + this
                    + (noCaches && note != null ? "; the topology has no caches at all: " + note : ""));
        }
        return new Split(topology, pieces, devices);
    }

    /**
     * A scope made of the first {@code n} objects of {@code type} in this scope (a "utility" scope).
     * For GPU/NIC: the first {@code n} devices with the PUs of their localities in this scope.
     *
     * @throws IllegalArgumentException when {@code n} is not in {@code 1..count(type)}
     */
    public Scope create(HwType type, int n) {
        int have = count(type);
        if (n < 1 || n > have) {
            throw new IllegalArgumentException("cannot create a scope of " + n + " " + type.shortName() + ": " + this + " has " + have);
        }
        if (type.isDevice()) {
            List<Device> chosen = devices(type).subList(0, n);
            CpuSet cpus = CpuSet.empty();
            for (Device d : chosen) cpus = cpus.or(d.locality());
            return new Scope(topology, cpus.and(cpuset), chosen);
        }
        int end = objectRuns(type).get(2 * n - 1);
        int[] pus = Arrays.copyOf(logicalPus(), end);
        return of(topology, pus, near(LogicalPus.of(topology).cpuset(pus)));
    }

    /**
     * This scope's part of each CPU kind (DESIGN.md §4.5), most performant first, as placement uses
     * them: split one of them to place work on one kind ({@code scope.kinds().get(0).splitAt(CORE)}
     * for the performance cores). A scope of one kind (a homogeneous machine, kinds unknown or
     * unranked) is its only part.
     */
    public List<Scope> kinds() {
        List<int[]> parts = KindParts.of(LogicalPus.of(topology), logicalPus());
        if (parts.size() == 1) return List.of(this);
        List<Scope> out = new ArrayList<>(parts.size());
        for (int[] part : parts) out.add(of(topology, part, near(LogicalPus.of(topology).cpuset(part))));
        return out;
    }

    /**
     * The part of this scope a placement with {@code kind} uses before it splits: the most
     * performant kind's, the most efficient kind's, or all of it ({@code ANY}; {@code AUTO}, which
     * chooses per pool, see {@link PlacementSpec}).
     */
    public Scope ofKind(Kind kind) {
        return switch (kind) {
            case PERFORMANCE -> kinds().get(0);
            case EFFICIENCY -> kinds().get(kinds().size() - 1);
            case AUTO, ANY -> this;
        };
    }

    /**
     * This scope's PUs of the CPU kind of efficiency rank {@code efficiency} (0 the most
     * energy-efficient; a PU of no known kind counts as 0).
     *
     * @throws IllegalArgumentException when this scope has no PU of that kind, naming the kinds it has
     */
    public Scope ofKind(int efficiency) {
        LogicalPus index = LogicalPus.of(topology);
        int[] part = KindParts.ofEfficiency(index, logicalPus(), efficiency);
        if (part.length == 0) {
            StringBuilder has = new StringBuilder();
            for (Scope k : kinds()) {
                int e = index.pu(k.logicalPus()[0]).efficiency();
                has.append(has.length() == 0 ? "" : ", ").append(e).append(" (pus ").append(k.cpuset()).append(')');
            }
            throw new IllegalArgumentException("no PU of CPU kind " + efficiency + " in " + this + ": its kinds are " + has);
        }
        return part.length == logicalPus().length ? this : of(topology, part, near(index.cpuset(part)));
    }

    private List<Device> near(CpuSet cpus) {
        List<Device> out = new ArrayList<>();
        for (Device d : devices) if (d.locality().intersects(cpus)) out.add(d);
        return out;
    }

    /**
     * Divides this scope among color classes, as a group split does (DESIGN.md §5): in class
     * order, class {@code i} gets a contiguous share of the units proportional to
     * {@code counts[i]}, units {@code ⌈cum·U/n⌉ − ⌈prev·U/n⌉} with {@code n} the sum of the counts.
     * Units are cores when there are at least as many cores as classes, else PUs. A class that
     * would get no unit shares its neighbour's scope (the previous class's; a leading class the
     * next one's): the same {@code Scope} object is returned for both. Each device goes to the
     * share holding most of its locality (ties: the earlier share).
     *
     * @param counts members per class, in class (color) order; none negative, not all 0
     * @return one scope per class, in class order
     */
    public List<Scope> shares(int[] counts) {
        LogicalPus index = LogicalPus.of(topology);
        Units cores = Units.cores(index, logicalPus());
        Units units = counts.length <= cores.count() ? cores : Units.pus(logicalPus());
        int[] ranges = Shares.ranges(units.count(), counts);
        List<int[]> distinct = new ArrayList<>();
        int[] which = new int[counts.length];
        for (int i = 0; i < counts.length; i++) {
            if (i > 0 && ranges[2 * i] == ranges[2 * i - 2] && ranges[2 * i + 1] == ranges[2 * i - 1]) {
                which[i] = which[i - 1];
                continue;
            }
            which[i] = distinct.size();
            distinct.add(Arrays.copyOfRange(units.pus(), units.starts()[ranges[2 * i]], units.starts()[ranges[2 * i + 1]]));
        }
        List<Scope> scopes = piecesWithDevices(topology, distinct, DeviceOwnership.owners(index, distinct, devices), devices);
        List<Scope> out = new ArrayList<>(counts.length);
        for (int w : which) out.add(scopes.get(w));
        return out;
    }

    /** Scopes for engine pieces, each holding the devices it owns. */
    static List<Scope> piecesWithDevices(Topology topology, List<int[]> pieces, int[] owners, List<Device> devices) {
        List<List<Device>> owned = new ArrayList<>();
        for (int p = 0; p < pieces.size(); p++) owned.add(new ArrayList<>());
        for (int d = 0; d < owners.length; d++) if (owners[d] >= 0) owned.get(owners[d]).add(devices.get(d));
        List<Scope> out = new ArrayList<>(pieces.size());
        for (int p = 0; p < pieces.size(); p++) out.add(of(topology, pieces.get(p), owned.get(p)));
        return out;
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

    /** {@code scope[numa:1 cores:4 pus:0-3 gpus:1]}; NUMA nodes, GPUs and NICs only where there are some. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("scope[");
        int numa = count(HwType.NUMANODE);
        if (numa > 0) sb.append("numa:").append(numa).append(' ');
        sb.append("cores:").append(Units.cores(LogicalPus.of(topology), logicalPus()).count());
        sb.append(" pus:").append(cpuset);
        int gpus = count(HwType.GPU), nics = count(HwType.NIC);
        if (gpus > 0) sb.append(" gpus:").append(gpus);
        if (nics > 0) sb.append(" nics:").append(nics);
        return sb.append(']').toString();
    }
}
