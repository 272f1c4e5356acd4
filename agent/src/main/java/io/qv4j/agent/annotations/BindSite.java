package io.qv4j.agent.annotations;

import io.qv4j.agent.config.Policy;
import io.qv4j.agent.bind.Binder;
import io.qv4j.agent.bind.VirtualThreads;
import io.qv4j.agent.log.Log;
import io.qv4j.agent.config.Options;
import io.qv4j.agent.place.Env;
import io.qv4j.agent.place.EnginePlanner;
import io.qv4j.api.PlacementSpec;
import io.qv4j.api.Scope;
import io.qv4j.split.Slots;
import io.qv4j.topology.CpuSet;

/**
 * One {@code @Bind} method: its pieces (the annotation's policy applied to the JVM scope, made on
 * the first call) and a slot allocator, so that concurrent callers get different pieces. A caller
 * takes the lowest free slot; when all are taken, callers share them in turn. On exit the
 * thread's exact previous kernel mask is restored.
 */
final class BindSite {

    /** One call in progress on one thread. */
    record Held(int id, BindSite site, int slot, CpuSet cpus, CpuSet previous, boolean bound) {
    }

    private final Policy policy;
    private Slots slots;
    private boolean failed;

    BindSite(Policy policy) {
        this.policy = policy;
    }

    Held enter(int id) {
        Env e = Annotations.env();
        Options o = Annotations.options();
        if (e == null || o == null || e.topology() == null || o.bind() == Options.Bind.OFF) return new Held(id, null, -1, null, null, false);
        if (VirtualThreads.current()) {
            VirtualThreads.skipped("@Bind");
            return new Held(id, null, -1, null, null, false);
        }
        Slots s;
        synchronized (this) {
            if (slots == null && !failed) {
                try {
                    // one piece per slot: as many callers as pieces run apart
                    PlacementSpec spec = policy.resolve(o.policy());
                    int pieces = spec.cut(Scope.of(e.topology(), e.jvm())).pieces().size();
                    slots = new Slots(EnginePlanner.compute(e.topology(), e.jvm(), spec, pieces).perTask());
                } catch (RuntimeException ex) {
                    failed = true;
                    Log.once("bind:" + policy.source(), policy.source() + ": cannot place (" + ex.getMessage() + "); callers run as they are");
                }
            }
            s = slots;
        }
        int slot = s == null ? -1 : s.takeOrShare(Thread.currentThread());
        if (slot < 0) return new Held(id, null, -1, null, null, false);
        CpuSet cpus = s.piece(slot);
        CpuSet prev = Binder.currentMask();
        boolean bound = prev != null && e.binder().bind(cpus);
        if (Log.isVerbose()) {
            Log.debug("@Bind " + policy.source().substring(policy.source().indexOf(" on ") + 4) + " [" + slot + "/" + s.size()
                    + "] thread \"" + Thread.currentThread().getName() + "\" -> pus " + cpus + e.binder().outcome(bound));
        }
        return new Held(id, this, slot, cpus, prev, bound);
    }

    void exit(Held h) {
        if (h.bound() && h.previous() != null) {
            Env e = Annotations.env();
            if (e != null) e.binder().bind(h.previous());
        }
        Slots s;
        synchronized (this) {
            s = slots;
        }
        if (h.slot() >= 0 && s != null) s.release(h.slot(), Thread.currentThread());
    }
}
