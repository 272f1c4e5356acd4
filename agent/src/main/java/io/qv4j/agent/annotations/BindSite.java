package io.qv4j.agent.annotations;

import io.qv4j.agent.config.Policy;
import io.qv4j.agent.log.Log;
import io.qv4j.agent.config.Options;
import io.qv4j.agent.place.Env;
import io.qv4j.topology.CpuSet;

/**
 * One {@code @Bind} method: its pieces (the annotation's policy applied to the JVM scope, made on
 * the first call) and a slot allocator, so that concurrent callers get different pieces. A caller
 * takes the lowest free slot; when all are taken, callers share them in turn. On exit the
 * thread's exact previous kernel mask is restored.
 */
final class BindSite {

    /** One call in progress on one thread. */
    record Held(int id, BindSite site, int slot, CpuSet previous, boolean bound) {
    }

    private final Policy policy;
    private CpuSet[] pieces;
    private int[] holders;
    private int next;
    private boolean failed;

    BindSite(Policy policy) {
        this.policy = policy;
    }

    Held enter(int id) {
        Env e = Annotations.env();
        Options o = Annotations.options();
        if (e == null || o == null || e.topology() == null || o.bind() == Options.Bind.OFF) return new Held(id, null, -1, null, false);
        int slot = -1;
        CpuSet cpus = null;
        synchronized (this) {
            if (pieces == null && !failed) {
                try {
                    pieces = Annotations.plan(e, policy.resolve(o));
                    holders = new int[pieces.length];
                } catch (RuntimeException ex) {
                    failed = true;
                    Log.once("bind:" + policy.source(), policy.source() + ": cannot place (" + ex.getMessage() + "); callers run as they are");
                }
            }
            if (pieces == null || pieces.length == 0) return new Held(id, null, -1, null, false);
            for (int i = 0; i < pieces.length; i++) {
                if (holders[i] == 0 && pieces[i] != null) {
                    slot = i;
                    break;
                }
            }
            if (slot < 0) {
                for (int k = 0; k < pieces.length && slot < 0; k++) {
                    int i = (next + k) % pieces.length;
                    if (pieces[i] != null) slot = i;
                }
                next = slot + 1;
            }
            if (slot < 0) return new Held(id, null, -1, null, false);
            holders[slot]++;
            cpus = pieces[slot];
        }
        CpuSet prev = io.qv4j.agent.bind.Binder.currentMask();
        boolean bound = false;
        if (o.bind() == Options.Bind.ON && prev != null) bound = e.binder().bind(cpus);
        if (Log.isVerbose()) {
            Log.debug("@Bind " + policy.source().substring(policy.source().indexOf(" on ") + 4) + " [" + slot + "/" + pieces.length
                    + "] thread \"" + Thread.currentThread().getName() + "\" -> pus " + cpus
                    + (o.bind() == Options.Bind.DRY_RUN ? " (dry run)" : bound ? "" : " (not bound)"));
        }
        return new Held(id, this, slot, prev, bound);
    }

    void exit(Held h) {
        if (h.bound() && h.previous() != null) {
            Env e = Annotations.env();
            if (e != null) e.binder().bind(h.previous());
        }
        synchronized (this) {
            if (h.slot() >= 0 && holders != null) holders[h.slot()]--;
        }
    }
}
