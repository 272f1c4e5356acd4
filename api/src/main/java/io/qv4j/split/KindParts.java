package io.qv4j.split;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A scope's PUs by CPU kind, as placement uses them (DESIGN.md §4.5): one part per efficiency
 * rank present, most performant first, and tasks dealt among the parts' pieces.
 */
public final class KindParts {

    private KindParts() {
    }

    /**
     * The scope's PUs (sorted logical indexes) grouped by their PU's efficiency, highest first, each
     * part still sorted. A scope of one efficiency is one part, the array itself.
     */
    public static List<int[]> of(LogicalPus index, int[] scope) {
        int max = -1, min = Integer.MAX_VALUE;
        for (int pu : scope) {
            int e = index.pu(pu).efficiency();
            max = Math.max(max, e);
            min = Math.min(min, e);
        }
        if (max == min) return List.of(scope);
        List<int[]> parts = new ArrayList<>();
        for (int e = max; e >= min; e--) {
            int[] part = ofEfficiency(index, scope, e);
            if (part.length > 0) parts.add(part);
        }
        return parts;
    }

    /** The scope's PUs of efficiency {@code efficiency}: empty when it has none. */
    public static int[] ofEfficiency(LogicalPus index, int[] scope, int efficiency) {
        int[] part = new int[scope.length];
        int n = 0;
        for (int pu : scope) if (index.pu(pu).efficiency() == efficiency) part[n++] = pu;
        return Arrays.copyOf(part, n);
    }

    /**
     * How many of {@code tasks} tasks each part takes, parts in order with {@code pieces[g]} pieces
     * and {@code pus[g]} PUs each. While the tasks fit on the pieces, the first parts fill up first
     * (a pool that fits on the fastest kind stays there). More tasks than pieces are dealt in
     * proportion to the parts' PUs, {@code ⌈cum·T/U⌉ − ⌈prev·T/U⌉}, earlier parts taking the
     * extras: pieces then share work as their PUs allow (two tasks on a core of two PUs), and a
     * kind of one PU per core is not crowded while a kind of two has room.
     */
    public static int[] deal(int tasks, int[] pieces, int[] pus) {
        long total = 0, units = 0;
        for (int g = 0; g < pieces.length; g++) {
            total += pieces[g];
            units += pus[g];
        }
        int[] out = new int[pieces.length];
        if (tasks <= total) {
            int left = tasks;
            for (int g = 0; g < pieces.length; g++) {
                out[g] = Math.min(left, pieces[g]);
                left -= out[g];
            }
            return out;
        }
        long cum = 0;
        for (int g = 0; g < pieces.length; g++) {
            long before = (cum * tasks + units - 1) / units;
            cum += pus[g];
            out[g] = (int) ((cum * tasks + units - 1) / units - before);
        }
        return out;
    }
}
