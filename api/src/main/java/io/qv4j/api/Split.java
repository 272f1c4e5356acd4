package io.qv4j.api;

import io.qv4j.topology.HwType;
import io.qv4j.split.DeviceDealing;
import io.qv4j.split.KindParts;
import io.qv4j.split.LogicalPus;
import io.qv4j.split.Mapping;
import io.qv4j.split.Pieces;
import io.qv4j.topology.Device;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.Topology;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The pieces of a scope and the mapping of tasks onto them by color (DESIGN.md §4.3).
 * Immutable and pure: the same call gives the same answer.
 *
 * <p>Tasks are numbered by rank {@code 0..T-1}. Colors order them by {@code (key, rank)}; without
 * keys, by rank. Results are indexed by rank. A whole mapping is computed once per
 * {@code (T, color)} and remembered, so placing one more worker of a known plan with
 * {@link #task(int, int, Color)} costs a lookup, not a re-plan.
 */
public final class Split {

    /**
     * One task's place in a split.
     *
     * @param task       the task's rank
     * @param firstPiece the index of its first piece; -1 for UNDEFINED
     * @param pieceCount how many consecutive pieces it holds (more than 1 only for AUTO with
     *                   fewer tasks than pieces; 0 for UNDEFINED)
     * @param scope      the PUs of those pieces and the task's devices; empty for UNDEFINED
     */
    public record Assignment(int task, int firstPiece, int pieceCount, Optional<Scope> scope) {
    }

    private static final int MEMO_LIMIT = 64;

    private final Topology topology;
    private final HwType unit;
    private final List<Scope> pieces;
    private final List<int[]> piecePus;
    private final Map<Long, List<Assignment>> memo = new ConcurrentHashMap<>();
    /** The splits of each CPU kind's part, most performant first, whose pieces these are in order; null for a split of one part. */
    private final List<Split> kinds;

    Split(Topology topology, Pieces engine, List<Device> scopeDevices) {
        this.topology = topology;
        this.unit = engine.unit();
        this.piecePus = engine.pus();
        this.pieces = List.copyOf(Scope.piecesWithDevices(topology, engine.pus(), engine.owners(), scopeDevices));
        this.kinds = null;
    }

    private Split(Topology topology, HwType unit, List<Scope> pieces, List<int[]> piecePus, List<Split> kinds) {
        this.topology = topology;
        this.unit = unit;
        this.pieces = List.copyOf(pieces);
        this.piecePus = piecePus;
        this.kinds = List.copyOf(kinds);
    }

    /**
     * The pieces of each kind's split one after the other, in the given order (DESIGN.md §4.5):
     * tasks are dealt to the kinds, then mapped inside each. A single part is itself.
     */
    static Split byKind(List<Split> kinds) {
        if (kinds.size() == 1) return kinds.get(0);
        List<Scope> pieces = new ArrayList<>();
        List<int[]> pus = new ArrayList<>();
        for (Split k : kinds) {
            pieces.addAll(k.pieces);
            pus.addAll(k.piecePus);
        }
        return new Split(kinds.get(0).topology, kinds.get(0).unit, pieces, pus, kinds);
    }

    /** A split with given pieces (all of one topology, disjoint, in logical order). */
    Split(List<Scope> pieces) {
        if (pieces.isEmpty()) throw new IllegalArgumentException("a split needs at least one piece");
        this.topology = pieces.get(0).topology();
        this.unit = HwType.PU;
        this.pieces = List.copyOf(pieces);
        this.piecePus = new ArrayList<>();
        for (Scope s : pieces) piecePus.add(s.logicalPus());
        this.kinds = null;
    }

    /**
     * This split with only the pieces {@code indexes} (increasing), as a split of its own: the same
     * pieces, fewer of them, so that a caller that chooses which pieces to use (the agent, by load)
     * maps tasks onto them by the same color rules. Its piece numbers count the chosen pieces.
     *
     * @throws IllegalArgumentException when {@code indexes} is empty, out of range or not increasing
     */
    public Split only(int... indexes) {
        List<Scope> chosen = new ArrayList<>(indexes.length);
        for (int i = 0; i < indexes.length; i++) {
            if (indexes[i] < 0 || indexes[i] >= pieces.size() || i > 0 && indexes[i] <= indexes[i - 1]) {
                throw new IllegalArgumentException("pieces " + Arrays.toString(indexes) + " of a split of " + pieces.size());
            }
            chosen.add(pieces.get(indexes[i]));
        }
        return new Split(chosen);
    }

    /** The pieces in logical order. */
    public List<Scope> pieces() {
        return pieces;
    }

    /** What the split counted: CORE or PU for {@code split(P)}, the object type for {@code splitAt(type)}. */
    public HwType unit() {
        return unit;
    }

    /** The piece of task {@code rank} among {@code tasks} tasks ordered by rank; empty for UNDEFINED. */
    public Optional<Scope> task(int rank, int tasks, Color color) {
        checkRank(rank, tasks);
        return assign(tasks, color).get(rank).scope();
    }

    /**
     * The piece of task {@code rank} with an explicit ordinal color: piece {@code ordinal} for
     * every task; a negative ordinal means UNDEFINED (empty). The piece's devices are dealt among
     * the {@code tasks} tasks that share it, in rank order.
     */
    public Optional<Scope> task(int rank, int tasks, int ordinal) {
        checkRank(rank, tasks);
        checkOrdinal(ordinal);
        if (ordinal < 0) return Optional.empty();
        return scopeOf(ordinal, 1, DeviceDealing.deal(pieces.get(ordinal).devices(), rank, tasks));
    }

    /** Every task's piece at once, tasks ordered by rank. */
    public List<Optional<Scope>> tasks(int tasks, Color color) {
        return scopes(assign(tasks, color));
    }

    /** Every task's piece, tasks ordered by {@code (keys[i], i)} as in {@code MPI_Comm_split}. */
    public List<Optional<Scope>> tasks(int[] keys, Color color) {
        return scopes(assign(keys, color));
    }

    /**
     * Explicit colors: task {@code i} goes to piece {@code ordinals[i]}; a negative ordinal means
     * UNDEFINED. Devices of a piece shared by several tasks are dealt among them in task order.
     */
    public List<Optional<Scope>> tasksByOrdinal(int[] ordinals) {
        return scopes(assignByOrdinal(ordinals, new int[ordinals.length]));
    }

    /** Like {@link #tasksByOrdinal(int[])}, devices dealt in {@code (keys[i], i)} order. */
    public List<Optional<Scope>> tasksByOrdinal(int[] ordinals, int[] keys) {
        return scopes(assignByOrdinal(ordinals, keys));
    }

    /** Every task's place for a color policy, tasks ordered by rank. Indexed by rank. */
    public List<Assignment> assign(int tasks, Color color) {
        if (tasks < 0) throw new IllegalArgumentException("negative task count " + tasks);
        List<Assignment> known = memo.get(memoKey(tasks, color));
        if (known != null) return known;
        List<Assignment> result = assign(new int[tasks], color);
        if (memo.size() < MEMO_LIMIT) memo.put(memoKey(tasks, color), result);
        return result;
    }

    /** Every task's place for a color policy, tasks ordered by {@code (keys[i], i)}. Indexed by rank. */
    public List<Assignment> assign(int[] keys, Color color) {
        if (kinds != null) return assignByKind(keys, color);
        int t = keys.length;
        Mapping mapping = switch (color) {
            case UNDEFINED -> Mapping.undefined(t);
            case PACKED -> Mapping.packed(t, pieces.size());
            case SPREAD -> t > pieces.size() ? Mapping.cyclic(t, pieces.size()) : Mapping.spread(t, paths());
            case AUTO -> Mapping.auto(t, pieceBoundaries());
        };
        return place(Mapping.order(keys), mapping);
    }

    /**
     * Tasks in {@code (key, rank)} order dealt to the kinds' splits ({@link KindParts#deal}), each
     * kind mapping its share by {@code color}; piece numbers are this split's.
     */
    private List<Assignment> assignByKind(int[] keys, Color color) {
        int[] order = Mapping.order(keys);
        int[] sizes = new int[kinds.size()], pus = new int[kinds.size()];
        for (int g = 0; g < sizes.length; g++) {
            sizes[g] = kinds.get(g).pieces.size();
            for (int[] p : kinds.get(g).piecePus) pus[g] += p.length;
        }
        int[] dealt = KindParts.deal(order.length, sizes, pus);
        Assignment[] out = new Assignment[order.length];
        int pos = 0, offset = 0;
        for (int g = 0; g < sizes.length; g++) {
            int[] inOrder = new int[dealt[g]];
            for (int i = 0; i < inOrder.length; i++) inOrder[i] = i;
            for (Assignment a : kinds.get(g).assign(inOrder, color)) {
                int rank = order[pos + a.task()];
                out[rank] = new Assignment(rank, a.firstPiece() < 0 ? -1 : a.firstPiece() + offset, a.pieceCount(), a.scope());
            }
            pos += dealt[g];
            offset += sizes[g];
        }
        return List.of(out);
    }

    /**
     * Explicit ordinal colors with keys: task {@code i} on piece {@code ordinals[i]} (negative:
     * UNDEFINED); devices of a shared piece dealt in {@code (keys[i], i)} order. Indexed by rank.
     *
     * @throws IllegalArgumentException when the arrays differ in length or an ordinal is {@code ≥ P}
     */
    public List<Assignment> assignByOrdinal(int[] ordinals, int[] keys) {
        if (ordinals.length != keys.length) {
            throw new IllegalArgumentException(ordinals.length + " colors but " + keys.length + " keys: need one of each per task");
        }
        for (int c : ordinals) checkOrdinal(c);
        int[] order = Mapping.order(keys);
        int[] first = new int[order.length], end = new int[order.length];
        for (int pos = 0; pos < order.length; pos++) {
            int c = ordinals[order[pos]];
            first[pos] = Math.max(c, 0);
            end[pos] = c < 0 ? first[pos] : c + 1;
        }
        return place(order, new Mapping(first, end));
    }

    /** Turns an engine mapping (by position in key order) into per-rank assignments with dealt devices. */
    private List<Assignment> place(int[] order, Mapping m) {
        int t = order.length;
        int[] users = new int[pieces.size()];
        for (int pos = 0; pos < t; pos++) for (int j = m.first()[pos]; j < m.end()[pos]; j++) users[j]++;
        int[] seen = new int[pieces.size()];
        Assignment[] out = new Assignment[t];
        for (int pos = 0; pos < t; pos++) {
            int rank = order[pos], first = m.first()[pos], count = m.end()[pos] - first;
            if (count == 0) {
                out[rank] = new Assignment(rank, -1, 0, Optional.empty());
                continue;
            }
            List<Device> devices = new ArrayList<>();
            for (int j = first; j < first + count; j++) {
                devices.addAll(DeviceDealing.deal(pieces.get(j).devices(), seen[j]++, users[j]));
            }
            out[rank] = new Assignment(rank, first, count, scopeOf(first, count, devices));
        }
        return List.of(out);
    }

    /** The scope of pieces {@code first..first+count-1} with the given devices (the piece itself when it keeps all of its own). */
    private Optional<Scope> scopeOf(int first, int count, List<Device> devices) {
        Scope piece = pieces.get(first);
        if (count == 1 && devices.equals(piece.devices())) return Optional.of(piece);
        int[] pus = piecePus.get(first);
        for (int j = first + 1; j < first + count; j++) pus = merge(pus, piecePus.get(j));
        return Optional.of(Scope.of(topology, pus, devices));
    }

    private static int[] merge(int[] a, int[] b) {
        int[] m = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, m, a.length, b.length);
        // pieces in order need no sort (see Mapping.order: the first sort of a JDK 22+ JVM is costly)
        for (int i = 1; i < m.length; i++) {
            if (m[i - 1] > m[i]) {
                Arrays.sort(m);
                break;
            }
        }
        return m;
    }

    /** For SPREAD: each piece's path from the root to the smallest object holding all of it. */
    private List<HwObject[]> paths() {
        LogicalPus index = LogicalPus.of(topology);
        List<HwObject[]> paths = new ArrayList<>(piecePus.size());
        for (int[] p : piecePus) paths.add(index.pathToCommonAncestor(p[0], p[p.length - 1]));
        return paths;
    }

    /** For AUTO: the boundary level between consecutive pieces (last PU of one, first PU of the next). */
    private int[] pieceBoundaries() {
        LogicalPus index = LogicalPus.of(topology);
        int[] levels = new int[piecePus.size() - 1];
        for (int j = 0; j < levels.length; j++) {
            int[] a = piecePus.get(j), b = piecePus.get(j + 1);
            levels[j] = index.boundaryLevel(a[a.length - 1], b[0]);
        }
        return levels;
    }

    private static List<Optional<Scope>> scopes(List<Assignment> assignments) {
        List<Optional<Scope>> out = new ArrayList<>(assignments.size());
        for (Assignment a : assignments) out.add(a.scope());
        return out;
    }

    private static long memoKey(int tasks, Color color) {
        return (long) tasks * Color.values().length + color.ordinal();
    }

    private static void checkRank(int rank, int tasks) {
        if (tasks < 0) throw new IllegalArgumentException("negative task count " + tasks);
        if (rank < 0 || rank >= tasks) throw new IllegalArgumentException("rank " + rank + " out of range 0.." + (tasks - 1) + " for " + tasks + " tasks");
    }

    private void checkOrdinal(int ordinal) {
        if (ordinal >= pieces.size()) {
            throw new IllegalArgumentException("color " + ordinal + " is not a piece: this split has " + pieces.size()
                    + " pieces (colors 0.." + (pieces.size() - 1) + ")");
        }
    }

    @Override
    public String toString() {
        return "split[" + pieces.size() + " " + unit.shortName() + " pieces " + pieces + "]";
    }
}
