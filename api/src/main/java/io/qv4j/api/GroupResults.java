package io.qv4j.api;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The results of a {@link TaskGroup}'s mapping operations, computed once from every member's
 * argument (index: rank): what each rank gets back.
 */
final class GroupResults {

    private GroupResults() {
    }

    /** Colors are checked before the split is made, so a mix-up is reported as such. */
    static Object[] mapByColor(Supplier<Split> splitter, Object[] colors) {
        Color policy = null;
        int policyRank = -1;
        List<Integer> tasks = new ArrayList<>();
        for (int r = 0; r < colors.length; r++) {
            Color c = (Color) colors[r];
            if (c == Color.UNDEFINED) continue;
            if (policy == null) {
                policy = c;
                policyRank = r;
            } else if (c != policy) {
                throw new IllegalArgumentException("members mix colors: rank " + policyRank + " passed " + policy
                        + " and rank " + r + " passed " + c);
            }
            tasks.add(r);
        }
        Split split = splitter.get(); // even when no member wants a piece: bad arguments fail alike
        Object[] results = new Object[colors.length];
        Arrays.fill(results, Optional.empty());
        if (policy == null) return results;
        List<Optional<Scope>> pieces = split.tasks(tasks.size(), policy);
        for (int i = 0; i < tasks.size(); i++) results[tasks.get(i)] = pieces.get(i);
        return results;
    }

    static Object[] mapByOrdinal(Split split, Object[] ordinals) {
        int[] asked = new int[ordinals.length];
        int pieces = split.pieces().size();
        for (int r = 0; r < ordinals.length; r++) {
            asked[r] = (Integer) ordinals[r];
            if (asked[r] >= pieces) {
                throw new IllegalArgumentException("rank " + r + " asked for piece " + asked[r] + " of " + pieces);
            }
        }
        return split.tasksByOrdinal(asked).toArray();
    }
}
