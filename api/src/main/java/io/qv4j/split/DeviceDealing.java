package io.qv4j.split;

import io.qv4j.topology.HwType;
import io.qv4j.topology.Device;

import java.util.ArrayList;
import java.util.List;

/**
 * Devices of a piece shared by several tasks (DESIGN.md §4.3): dealt among them in task order,
 * round robin, one type at a time (so each task gets a GPU and a NIC where there are enough). Tasks
 * share a device only when there are fewer devices of that type than tasks.
 */
public final class DeviceDealing {

    private DeviceDealing() {
    }

    /** The devices that the {@code user}-th of {@code users} tasks sharing a piece gets. */
    public static List<Device> deal(List<Device> pieceDevices, int user, int users) {
        if (users == 1) return pieceDevices;
        List<Device> out = new ArrayList<>();
        for (HwType type : new HwType[] {HwType.GPU, HwType.NIC}) {
            List<Device> ofType = new ArrayList<>();
            for (Device d : pieceDevices) if (d.type() == type) ofType.add(d);
            int k = ofType.size();
            if (k == 0) continue;
            if (k < users) {
                out.add(ofType.get(user % k));
            } else {
                for (int b = user; b < k; b += users) out.add(ofType.get(b));
            }
        }
        return out;
    }
}
