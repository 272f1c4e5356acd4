package io.qv4j.split;

import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Device;

import java.util.List;

/**
 * Which piece owns a device (DESIGN.md §4.1): the one holding the most PUs of its locality; ties
 * go to the lower piece. So every device near the scope has exactly one owner.
 */
public final class DeviceOwnership {

    private DeviceOwnership() {
    }

    /** @return for each device, the index of its owner piece, or -1 when no piece holds a PU of its locality */
    public static int[] owners(LogicalPus index, List<int[]> pieces, List<Device> devices) {
        int[] owners = new int[devices.size()];
        for (int d = 0; d < owners.length; d++) {
            CpuSet locality = devices.get(d).locality();
            int owner = -1, most = 0;
            for (int p = 0; p < pieces.size(); p++) {
                int n = 0;
                for (int pu : pieces.get(p)) if (locality.contains(index.os(pu))) n++;
                if (n > most) {
                    most = n;
                    owner = p;
                }
            }
            owners[d] = owner;
        }
        return owners;
    }
}
