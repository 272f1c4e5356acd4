package io.qv4j.api;

import io.qv4j.topology.HwType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * A communicator of {@code n} threads, like an MPI communicator (DESIGN.md §5).
 *
 * <p>Each thread takes the handle of its own rank, {@link #member(int) member(rank)}, and calls
 * the collective operations on it: every member calls the same operation, each with its own
 * arguments, and all calls return together. Ranks are given, not handed out in arrival order,
 * so that a thread's rank is known before it runs, as with MPI ranks. The group does not check
 * which thread uses a handle, but two arrivals for one rank in one operation break the group.
 *
 * <p>Failure: when a member's own arguments are invalid, it calls {@link Member#abort}, is
 * interrupted while waiting, or does not arrive within the {@linkplain #timeout() timeout} of
 * another member's arrival, the operation is broken for all: each waiting member's call fails
 * at once with a {@link TaskGroupException} naming the rank and the cause (the member whose
 * arguments were invalid gets its own {@link IllegalArgumentException}). Arguments that must be
 * equal for all members but are not, and arguments the split engine rejects, make every member's
 * call throw an {@link IllegalArgumentException} naming the values. A broken group stays broken:
 * every later call fails at once. Subgroups are groups of their own; breaking a group does not
 * break its subgroups or its parent.
 */
public final class TaskGroup {

    /** The color of a member that wants no subgroup in {@link Member#split(Scope, int, int)}, like {@code MPI_UNDEFINED}. */
    public static final int UNDEFINED = -1;

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private final int size;
    private final Duration timeout;
    private final Member[] members;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition roundChanged = lock.newCondition();
    private Round round;        // guarded by lock: the operation members are arriving at
    private Breakage breakage;  // guarded by lock: why the group is broken, null while it is not

    /** A group of {@code size} threads whose members wait at most {@link #DEFAULT_TIMEOUT} for each other. */
    public static TaskGroup create(int size) {
        return create(size, DEFAULT_TIMEOUT);
    }

    /** A group of {@code size} threads whose members wait at most {@code timeout} for each other. */
    public static TaskGroup create(int size, Duration timeout) {
        if (size < 1) throw new IllegalArgumentException("a task group needs at least 1 member, got " + size);
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the timeout of a task group must be positive, got " + timeout);
        }
        return new TaskGroup(size, timeout, null);
    }

    private TaskGroup(int size, Duration timeout, Scope scope) {
        this.size = size;
        this.timeout = timeout;
        this.members = new Member[size];
        for (int r = 0; r < size; r++) members[r] = scope == null ? new Member(this, r) : new Subgroup(this, r, scope);
        this.round = new Round(size);
    }

    public int size() {
        return size;
    }

    /** How long a member waits for the others in one operation before the group breaks. */
    public Duration timeout() {
        return timeout;
    }

    /** The handle of rank {@code rank}, for the one thread that plays that rank. */
    public Member member(int rank) {
        if (rank < 0 || rank >= size) throw new IllegalArgumentException("rank " + rank + " is not in " + this);
        return members[rank];
    }

    public boolean isBroken() {
        lock.lock();
        try {
            return breakage != null;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "task group of " + size;
    }

    /**
     * One member's handle: its rank and the collective operations. A {@link Subgroup} is the
     * handle a member gets in a group made by {@link #split(Scope, int, int)}.
     */
    public static sealed class Member permits Subgroup {

        private final TaskGroup group;
        private final int rank;

        Member(TaskGroup group, int rank) {
            this.group = group;
            this.rank = rank;
        }

        public int rank() {
            return rank;
        }

        public int size() {
            return group.size;
        }

        public TaskGroup group() {
            return group;
        }

        /** Returns when every member has called it. */
        public void barrier() {
            group.exchange(rank, "barrier", null, null, own -> new Object[own.length]);
        }

        /**
         * {@code MPI_Comm_split}: members that pass the same {@code color} form a subgroup, ranked
         * by {@code (key, rank)}; {@link TaskGroup#UNDEFINED} gives {@code Optional.empty()}.
         * {@code scope} (the same for all members) is divided among the colors in color order:
         * each color gets a contiguous share of its units proportional to its number of members
         * (DESIGN.md §5), counting only members with a color.
         *
         * @param color {@code ≥ 0}, or {@link TaskGroup#UNDEFINED}
         */
        public Optional<Subgroup> split(Scope scope, int color, int key) {
            own(() -> {
                Objects.requireNonNull(scope, "scope");
                if (color < 0 && color != UNDEFINED) {
                    throw new IllegalArgumentException("color must be >= 0 or TaskGroup.UNDEFINED (-1), got " + color);
                }
            });
            return cast(group.exchange(rank, "split", new Args(scope, null), new int[]{color, key},
                    own -> group.splitByColor(scope, own)));
        }

        /** This member's piece of {@code scope.split(pieces)} for its color, tasks ordered by rank (DESIGN.md §4.3). */
        public Optional<Scope> split(Scope scope, int pieces, Color color) {
            own(() -> {
                Objects.requireNonNull(scope, "scope");
                Objects.requireNonNull(color, "color");
                if (pieces < 1) throw new IllegalArgumentException("pieces must be >= 1, got " + pieces);
            });
            return cast(group.exchange(rank, "split", new Args(scope, pieces), color,
                    own -> GroupResults.mapByColor(() -> scope.split(pieces), own)));
        }

        /** This member's piece of {@code scope.splitAt(type)} for its color, tasks ordered by rank (DESIGN.md §4.3). */
        public Optional<Scope> splitAt(Scope scope, HwType type, Color color) {
            own(() -> {
                Objects.requireNonNull(scope, "scope");
                Objects.requireNonNull(type, "type");
                Objects.requireNonNull(color, "color");
            });
            return cast(group.exchange(rank, "splitAt", new Args(scope, type), color,
                    own -> GroupResults.mapByColor(() -> scope.splitAt(type), own)));
        }

        /**
         * Piece {@code ordinal} of {@code scope.split(pieces)}; {@link TaskGroup#UNDEFINED} gives
         * empty. (Not an overload of {@code split}: {@code split(Scope, int, int)} is the
         * {@code MPI_Comm_split} one.)
         */
        public Optional<Scope> splitByOrdinal(Scope scope, int pieces, int ordinal) {
            own(() -> {
                Objects.requireNonNull(scope, "scope");
                if (pieces < 1) throw new IllegalArgumentException("pieces must be >= 1, got " + pieces);
                if (ordinal < UNDEFINED || ordinal >= pieces) {
                    throw new IllegalArgumentException("piece " + ordinal + " does not exist in a split into " + pieces + " pieces");
                }
            });
            return cast(group.exchange(rank, "splitByOrdinal", new Args(scope, pieces), ordinal,
                    own -> GroupResults.mapByOrdinal(scope.split(pieces), own)));
        }

        /** Piece {@code ordinal} of {@code scope.splitAt(type)}; {@link TaskGroup#UNDEFINED} gives empty. */
        public Optional<Scope> splitAt(Scope scope, HwType type, int ordinal) {
            own(() -> {
                Objects.requireNonNull(scope, "scope");
                Objects.requireNonNull(type, "type");
                if (ordinal < UNDEFINED) throw new IllegalArgumentException("piece " + ordinal + " does not exist");
            });
            return cast(group.exchange(rank, "splitAtByOrdinal", new Args(scope, type), ordinal,
                    own -> GroupResults.mapByOrdinal(scope.splitAt(type), own)));
        }

        /**
         * Breaks the group for all members: whoever waits in an operation, or calls one later,
         * fails with a {@link TaskGroupException} naming this rank and {@code cause}. Does nothing
         * when the group is already broken.
         */
        public void abort(Throwable cause) {
            group.breakBy(rank, Objects.requireNonNull(cause, "cause"));
        }

        @Override
        public String toString() {
            return "rank " + rank + " of " + group;
        }

        /** Runs this member's own argument checks; a failure breaks the group before it is rethrown. */
        private void own(Runnable check) {
            try {
                check.run();
            } catch (RuntimeException e) {
                group.breakBy(rank, e);
                throw e;
            }
        }

        @SuppressWarnings("unchecked")
        private static <T> Optional<T> cast(Object result) {
            return (Optional<T>) result;
        }
    }

    /** A member's handle in a group made by {@link Member#split(Scope, int, int)}: also its share of the scope. */
    public static final class Subgroup extends Member {

        private final Scope scope;

        Subgroup(TaskGroup group, int rank, Scope scope) {
            super(group, rank);
            this.scope = scope;
        }

        /** This subgroup's share of the scope that was split; the same for all its members. */
        public Scope scope() {
            return scope;
        }

        @Override
        public String toString() {
            return super.toString() + " on pus " + scope.cpuset();
        }
    }

    // ---- the exchange -------------------------------------------------------------------------

    /** Arguments that every member of one operation must pass equal. */
    private record Args(Scope scope, Object cut) {
        @Override
        public String toString() {
            String s = "scope on pus " + scope.cpuset();
            if (cut instanceof HwType t) return s + " at " + t.shortName();
            return cut == null ? s : s + " in " + cut + " pieces";
        }
    }

    /** One operation being gathered: what the first arrival asked for and everyone's own arguments. */
    private static final class Round {
        String op;
        Object shared;
        int firstRank;
        final Object[] own;
        final boolean[] arrived;
        int arrivals;
        Object[] results; // set once everyone arrived and the operation was computed

        Round(int size) {
            own = new Object[size];
            arrived = new boolean[size];
        }

        List<Integer> missing() {
            List<Integer> out = new ArrayList<>();
            for (int r = 0; r < arrived.length; r++) if (!arrived[r]) out.add(r);
            return out;
        }
    }

    /** Why the group broke; {@code sharedArguments}: every member of {@code round} is at fault alike. */
    private record Breakage(Round round, String message, Throwable cause, boolean sharedArguments) {
    }

    /**
     * Gathers every member's arguments for one operation; the last to arrive computes all results
     * (under the lock: the computation is pure and short) and wakes the others.
     */
    private Object exchange(int rank, String op, Object shared, Object own, Function<Object[], Object[]> compute) {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            Round r = round;
            if (breakage != null) {
                // A member that had not yet come to the broken operation takes part in its failure;
                // every later call of it is a new operation on a broken group.
                boolean joinsBrokenOperation = breakage.round() == r && !r.arrived[rank];
                r.arrived[rank] = true;
                throw failure(joinsBrokenOperation);
            }
            if (r.arrived[rank]) {
                IllegalStateException e = new IllegalStateException(
                        "rank " + rank + " arrived twice at one " + r.op + " (two threads using one rank?)");
                breakBy(rank, e);
                throw e;
            }
            if (r.arrivals == 0) {
                r.op = op;
                r.shared = shared;
                r.firstRank = rank;
            } else if (!r.op.equals(op)) {
                r.arrived[rank] = true;
                throw breakForArguments(r, this + ": rank " + rank + " called " + op + " while rank " + r.firstRank
                        + " called " + r.op, null);
            } else if (!Objects.equals(r.shared, shared)) {
                r.arrived[rank] = true;
                throw breakForArguments(r, this + ": collective " + op + " needs the same arguments from every member, but rank "
                        + r.firstRank + " passed " + r.shared + " and rank " + rank + " passed " + shared, null);
            }
            r.own[rank] = own;
            r.arrived[rank] = true;
            r.arrivals++;

            if (r.arrivals == size) {
                try {
                    r.results = compute.apply(r.own);
                } catch (IllegalArgumentException e) {
                    throw breakForArguments(r, this + ": collective " + op + ": " + e.getMessage(), e);
                } catch (RuntimeException | Error e) {
                    breakage = new Breakage(r, this + ": collective " + op + " failed: " + e, e, false);
                    roundChanged.signalAll();
                    throw new TaskGroupException(breakage.message(), e);
                }
                round = new Round(size);
                roundChanged.signalAll();
                return r.results[rank];
            }

            while (r.results == null) {
                if (breakage != null) throw failure(true);
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    String message = this + ": collective " + op + " timed out after " + format(timeout)
                            + " waiting for ranks " + r.missing();
                    breakage = new Breakage(r, message, null, false);
                    roundChanged.signalAll();
                    throw new TaskGroupException(message, null);
                }
                try {
                    roundChanged.awaitNanos(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    breakBy(rank, e);
                    throw new TaskGroupException(this + ": rank " + rank + " was interrupted in " + op, e);
                }
            }
            return r.results[rank];
        } finally {
            lock.unlock();
        }
    }

    /** Breaks the group because of member {@code rank}; the first reason wins. */
    private void breakBy(int rank, Throwable cause) {
        lock.lock();
        try {
            if (breakage != null) return;
            Round r = round;
            String where = r.arrivals > 0 ? ": collective " + r.op + " broken by rank " : " broken by rank ";
            breakage = new Breakage(r, this + where + rank + ": " + cause, cause, false);
            roundChanged.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private IllegalArgumentException breakForArguments(Round r, String message, Throwable cause) {
        breakage = new Breakage(r, message, cause, true);
        roundChanged.signalAll();
        return new IllegalArgumentException(message, cause);
    }

    /** The exception for a member that finds the group broken, {@code inBrokenOperation}: while taking part in the operation that broke it. */
    private RuntimeException failure(boolean inBrokenOperation) {
        Breakage b = breakage;
        if (b.sharedArguments() && inBrokenOperation) return new IllegalArgumentException(b.message(), b.cause());
        return new TaskGroupException(b.message(), b.cause());
    }

    private static String format(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
    }

    // ---- the operations' results, computed once from everyone's arguments ------------------

    private Object[] splitByColor(Scope scope, Object[] own) {
        // color → ranks with that color, colors ascending; ranks ordered by (key, rank)
        Map<Integer, List<Integer>> classes = new TreeMap<>();
        for (int r = 0; r < size; r++) {
            int color = ((int[]) own[r])[0];
            if (color != UNDEFINED) classes.computeIfAbsent(color, c -> new ArrayList<>()).add(r);
        }
        Object[] results = new Object[size];
        Arrays.fill(results, Optional.empty());
        if (classes.isEmpty()) return results;
        int[] counts = classes.values().stream().mapToInt(List::size).toArray();
        List<Scope> shares = scope.shares(counts); // DESIGN §5, one contiguous share per color class
        int c = 0;
        for (List<Integer> ranks : classes.values()) {
            ranks.sort(Comparator.<Integer>comparingInt(r -> ((int[]) own[r])[1]).thenComparingInt(r -> r));
            TaskGroup sub = new TaskGroup(ranks.size(), timeout, shares.get(c++));
            for (int i = 0; i < ranks.size(); i++) results[ranks.get(i)] = Optional.of(sub.members[i]);
        }
        return results;
    }
}
