package io.qv4j.split;

import io.qv4j.topology.CpuSet;

import java.util.Arrays;
import java.util.List;

/**
 * The slots of a group of tasks, one per planned task, each with its piece (null: no piece). A
 * starting task takes the lowest free slot (or the lowest whose piece holds the PU it runs on,
 * {@link #take(Object, int)}), so a replacement lands where its predecessor was; what
 * happens when none is free is the caller's choice ({@link #take} or {@link #takeOrShare}). The one
 * slot allocator of the agent's pools, {@code @Bind} methods and {@code QvExecutors}. Thread-safe.
 */
public final class Slots {

    private final CpuSet[] pieces;
    private final int[] holders;
    private final Object[] owners;
    private int next;

    public Slots(List<CpuSet> pieces) {
        this.pieces = pieces.toArray(new CpuSet[0]);
        this.holders = new int[this.pieces.length];
        this.owners = new Object[this.pieces.length];
    }

    public int size() {
        return pieces.length;
    }

    /** Slot {@code i}'s piece, or null. */
    public synchronized CpuSet piece(int i) {
        return pieces[i];
    }

    /** The union of the pieces (empty when no slot has one). */
    public synchronized CpuSet union() {
        CpuSet u = CpuSet.empty();
        for (CpuSet p : pieces) if (p != null) u = u.or(p);
        return u;
    }

    /** Who holds slot {@code i} alone ({@link #take}), or null. */
    public synchronized Object owner(int i) {
        return owners[i];
    }

    /** The lowest free slot with a piece, now held by {@code owner}; -1 when none is free. */
    public synchronized int take(Object owner) {
        for (int i = 0; i < pieces.length; i++) {
            if (holders[i] == 0 && pieces[i] != null) {
                holders[i] = 1;
                owners[i] = owner;
                return i;
            }
        }
        return -1;
    }

    /**
     * The lowest free slot whose piece holds PU {@code cpu}, else {@link #take}: a thread bound
     * to a piece it already runs in is not moved. -1 when none is free.
     */
    public synchronized int take(Object owner, int cpu) {
        for (int i = 0; cpu >= 0 && i < pieces.length; i++) {
            if (pieces[i] != null && pieces[i].contains(cpu) && takeAt(i, owner) >= 0) return i;
        }
        return take(owner);
    }

    /** Slot {@code i} for {@code owner} (a re-plan keeping a running task's slot number); -1 when it is taken or has no piece. */
    public synchronized int takeAt(int i, Object owner) {
        if (i < 0 || i >= pieces.length || holders[i] != 0 || pieces[i] == null) return -1;
        holders[i] = 1;
        owners[i] = owner;
        return i;
    }

    /** {@link #take}, else the slots with a piece in turn (shared); -1 when no slot has a piece. */
    public synchronized int takeOrShare(Object owner) {
        int i = take(owner);
        if (i >= 0) return i;
        for (int k = 0; k < pieces.length; k++) {
            int s = (next + k) % pieces.length;
            if (pieces[s] != null) {
                next = s + 1;
                holders[s]++;
                return s;
            }
        }
        return -1;
    }

    /** {@code owner} leaves slot {@code i}. */
    public synchronized void release(int i, Object owner) {
        if (i < 0 || i >= pieces.length || holders[i] == 0) return;
        holders[i]--;
        if (owners[i] == owner) owners[i] = null;
    }

    /** New pieces for the same slots (a re-split); holders keep their slots. */
    public synchronized void repiece(List<CpuSet> newPieces) {
        if (newPieces.size() != pieces.length) throw new IllegalArgumentException(newPieces.size() + " pieces for " + pieces.length + " slots");
        for (int i = 0; i < pieces.length; i++) pieces[i] = newPieces.get(i);
    }

    @Override
    public synchronized String toString() {
        return Arrays.toString(pieces);
    }
}
