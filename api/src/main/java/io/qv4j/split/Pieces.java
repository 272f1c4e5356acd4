package io.qv4j.split;

import io.qv4j.topology.HwType;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Device;
import io.qv4j.topology.HwObject;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pieces of a split (DESIGN.md §4.1, §4.2).
 *
 * @param unit   what was counted: CORE or PU for a regular split, the object type for {@code splitAt}
 * @param pus    each piece's PUs, sorted logical indexes, pieces in logical order
 * @param owners for each device of the scope (in the scope's order), the piece that owns it, or -1
 */
public record Pieces(HwType unit, List<int[]> pus, int[] owners) {

    public int count() {
        return pus.size();
    }

    /** Regular split of {@code scope} into {@code pieces} contiguous runs of units (§4.1). */
    public static Pieces regular(LogicalPus index, int[] scope, List<Device> devices, int pieces) {
        Units units = Units.choose(index, scope, pieces);
        List<int[]> out = cut(units, CutPlacement.sizes(units.boundaryLevels(index), pieces));
        return new Pieces(units.type(), out, DeviceOwnership.owners(index, out, devices));
    }

    /**
     * Weighted split of {@code scope} into one contiguous piece per weight, sizes in units
     * proportional to the weights ({@link Apportion}), cuts placed by the §4.1 rule among the
     * choices the rounding leaves open. Units as for a regular split into as many pieces.
     *
     * @throws IllegalArgumentException for a bad weight (naming its index) or more pieces than PUs
     */
    public static Pieces weighted(LogicalPus index, int[] scope, List<Device> devices, double[] weights) {
        Apportion.check(weights);
        Units units = Units.choose(index, scope, weights.length);
        Apportion.Shares shares = Apportion.of(units.count(), weights);
        int[] sizes = CutPlacement.sizes(units.boundaryLevels(index), shares.base(), shares.eligible(), shares.extras());
        List<int[]> out = cut(units, sizes);
        return new Pieces(units.type(), out, DeviceOwnership.owners(index, out, devices));
    }

    /** Slices the units into consecutive pieces of the given sizes (in units). */
    static List<int[]> cut(Units units, int[] sizes) {
        List<int[]> out = new ArrayList<>(sizes.length);
        int u = 0;
        for (int size : sizes) {
            out.add(Arrays.copyOfRange(units.pus(), units.starts()[u], units.starts()[u + size]));
            u += size;
        }
        return out;
    }

    /**
     * One piece per object of {@code type} with PUs in the scope, in logical order (§4.2); empty
     * when there is none. Memory-only NUMA nodes have no PUs, so they never show up here.
     */
    public static Pieces at(LogicalPus index, int[] scope, List<Device> devices, HwType type) {
        if (type.isDevice()) return atDevices(index, scope, devices, type);
        List<int[]> out = new ArrayList<>();
        HwObject current = null;
        int start = 0;
        for (int i = 0; i <= scope.length; i++) {
            HwObject o = i < scope.length ? index.objectOf(scope[i], type) : null;
            // an object's PUs are consecutive in logical order, so a run of one object is the piece
            if (i == scope.length || o != current) {
                if (current != null) out.add(Arrays.copyOfRange(scope, start, i));
                current = o;
                start = i;
            }
        }
        return new Pieces(type, out, DeviceOwnership.owners(index, out, devices));
    }

    /**
     * One piece per GPU or NIC. Devices with equal localities (in the scope) cut those PUs among
     * themselves by the regular rule, so pieces stay disjoint and each holds its device. A device
     * with no PU of the scope in its locality is left out. When there are more such devices than
     * PUs, the PUs are cut into as many pieces as there are PUs and the devices dealt round robin
     * among them (a piece then holds several devices).
     */
    private static Pieces atDevices(LogicalPus index, int[] scope, List<Device> devices, HwType type) {
        Map<CpuSet, List<Integer>> byLocality = new LinkedHashMap<>();
        Map<CpuSet, int[]> localPus = new LinkedHashMap<>();
        for (int d = 0; d < devices.size(); d++) {
            if (devices.get(d).type() != type) continue;
            CpuSet locality = devices.get(d).locality();
            int[] local = Arrays.stream(scope).filter(pu -> locality.contains(index.os(pu))).toArray();
            if (local.length == 0) continue;
            CpuSet key = index.cpuset(local);
            byLocality.computeIfAbsent(key, k -> new ArrayList<>()).add(d);
            localPus.put(key, local);
        }
        List<CpuSet> localities = new ArrayList<>(byLocality.keySet());
        localities.sort((a, b) -> Integer.compare(localPus.get(a)[0], localPus.get(b)[0])); // logical order, stable
        List<int[]> out = new ArrayList<>();
        int[] owners = new int[devices.size()];
        Arrays.fill(owners, -1);
        for (CpuSet locality : localities) {
            List<Integer> group = byLocality.get(locality);
            int[] local = localPus.get(locality);
            int first = out.size();
            int n = Math.min(group.size(), local.length);
            out.addAll(n == 1 ? List.of(local) : regular(index, local, List.of(), n).pus());
            for (int k = 0; k < group.size(); k++) owners[group.get(k)] = first + k % n;
        }
        // devices of the other type go by the ownership rule
        int[] others = DeviceOwnership.owners(index, out, devices);
        for (int d = 0; d < owners.length; d++) if (devices.get(d).type() != type) owners[d] = others[d];
        return new Pieces(type, out, owners);
    }
}
