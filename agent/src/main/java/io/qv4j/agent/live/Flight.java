package io.qv4j.agent.live;

import io.qv4j.agent.place.Pool;
import io.qv4j.agent.place.Worker;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Timespan;

/**
 * JDK Flight Recorder events. Nothing of {@code jdk.jfr} beyond {@link FlightRecorder} loads until
 * Flight Recorder has started in this JVM (a recording from the command line or {@code jcmd}); the
 * event classes load at the first placement after that, and an event builds its strings only when
 * a recording has it enabled.
 */
final class Flight {

    /** 0 unknown, 1 JFR present, -1 absent (a runtime without the jdk.jfr module). */
    private static volatile int present;

    private Flight() {
    }

    /** Whether Flight Recorder has started in this JVM; false, and never asked again, without jdk.jfr. */
    static boolean active() {
        if (present < 0) return false;
        try {
            boolean on = FlightRecorder.isInitialized();
            present = 1;
            return on;
        } catch (Throwable t) {
            present = -1;
            return false;
        }
    }

    static void placed(Pool p, Worker w) {
        WorkerPlaced e = new WorkerPlaced();
        if (!e.isEnabled()) return;
        e.pool = p.name();
        e.slot = w.slot();
        e.tasks = p.tasks();
        e.piece = w.piece();
        e.cpuset = w.cpuset() == null ? null : w.cpuset().toString();
        e.thread = w.name();
        e.tid = w.tid();
        e.bound = w.bound();
        e.bindTime = w.startNanos();
        e.rebinds = w.rebinds();
        e.commit();
    }

    static void refused(Pool p, Worker w, String reason) {
        BindingRefused e = new BindingRefused();
        if (!e.isEnabled()) return;
        e.pool = p.name();
        e.slot = w.slot();
        e.cpuset = w.cpuset() == null ? null : w.cpuset().toString();
        e.thread = w.name();
        e.reason = reason;
        e.commit();
    }

    static void planned(Pool p) {
        PoolPlanned e = new PoolPlanned();
        if (!e.isEnabled()) return;
        e.pool = p.name();
        e.poolClass = p.type();
        e.tasks = p.tasks();
        e.pinned = p.pinned();
        e.scope = p.scope() == null ? null : p.scope().toString();
        e.policy = p.policy() == null ? null : p.policy().toString();
        e.sharesPus = p.sharesPus();
        e.exclusive = p.exclusive();
        StringBuilder sb = new StringBuilder();
        if (p.slots() != null) {
            for (int i = 0; i < p.slots().size(); i++) sb.append(i == 0 ? "" : " ").append(i).append(':').append(p.slots().piece(i));
        }
        e.slots = sb.toString();
        e.commit();
    }

    static void rebalanced(String summary, int pools) {
        Rebalanced e = new Rebalanced();
        if (!e.isEnabled()) return;
        e.summary = summary;
        e.pools = pools;
        e.commit();
    }

    static void moved(Pool p, Worker w, String why) {
        WorkerMoved e = new WorkerMoved();
        if (!e.isEnabled()) return;
        e.pool = p.name();
        e.thread = w.name();
        e.cpuset = w.cpuset() == null ? null : w.cpuset().toString();
        e.waited = w.waited();
        e.reason = why;
        e.commit();
    }

    static void released(Pool p, String why) {
        PoolReleased e = new PoolReleased();
        if (!e.isEnabled()) return;
        e.pool = p.name();
        e.scope = p.scope() == null ? null : p.scope().toString();
        e.reason = why;
        e.commit();
    }

    @Name("io.qv4j.WorkerMoved")
    @Label("Worker Moved")
    @Category("qv4j")
    @Description("A pinned worker waited for a PU other processes keep busy and was moved to an idle one")
    static final class WorkerMoved extends Event {
        @Label("Pool")
        String pool;
        @Label("Worker Thread")
        String thread;
        @Label("Cpuset")
        String cpuset;
        @Label("Waited")
        double waited;
        @Label("Reason")
        String reason;
    }

    @Name("io.qv4j.PoolReleased")
    @Label("Pool Released")
    @Category("qv4j")
    @Description("Every piece of a pool's scope was held or busy: its workers share the scope until the load is gone")
    static final class PoolReleased extends Event {
        @Label("Pool")
        String pool;
        @Label("Scope")
        String scope;
        @Label("Reason")
        String reason;
    }

    @Name("io.qv4j.WorkerPlaced")
    @Label("Worker Placed")
    @Category("qv4j")
    @Description("A pool worker was placed on its piece (bound on its own thread)")
    static final class WorkerPlaced extends Event {
        @Label("Pool")
        String pool;
        @Label("Slot")
        @Description("-1: beyond the pool's tasks or unbounded, bound to the pool scope")
        int slot;
        @Label("Tasks")
        int tasks;
        @Label("Piece")
        String piece;
        @Label("Cpuset")
        String cpuset;
        @Label("Worker Thread")
        String thread;
        @Label("Kernel Thread Id")
        long tid;
        @Label("Bound")
        @Description("false: planned only (bind=dry-run or off)")
        boolean bound;
        @Label("Time To Bind")
        @Timespan(Timespan.NANOSECONDS)
        long bindTime;
        @Label("Rebinds")
        int rebinds;
    }

    @Name("io.qv4j.PoolPlanned")
    @Label("Pool Planned")
    @Category("qv4j")
    @Description("A pool's slots were planned on its scope")
    static final class PoolPlanned extends Event {
        @Label("Pool")
        String pool;
        @Label("Pool Class")
        String poolClass;
        @Label("Tasks")
        int tasks;
        @Label("Pinned")
        boolean pinned;
        @Label("Scope")
        String scope;
        @Label("Policy")
        String policy;
        @Label("Shares PUs")
        boolean sharesPus;
        @Label("Exclusive")
        @Description("its workers have cores no other thread of the application is given")
        boolean exclusive;
        @Label("Slots")
        @Description("slot:cpuset for each slot")
        String slots;
    }

    @Name("io.qv4j.Rebalanced")
    @Label("Rebalanced")
    @Category("qv4j")
    @Description("The JVM scope was re-split among the pinned pools by their load")
    static final class Rebalanced extends Event {
        @Label("Summary")
        String summary;
        @Label("Pools")
        int pools;
    }

    @Name("io.qv4j.BindingRefused")
    @Label("Binding Refused")
    @Category("qv4j")
    @Description("A worker was not bound to its planned cpuset")
    static final class BindingRefused extends Event {
        @Label("Pool")
        String pool;
        @Label("Slot")
        int slot;
        @Label("Cpuset")
        String cpuset;
        @Label("Worker Thread")
        String thread;
        @Label("Reason")
        String reason;
    }
}
