package io.qv4j.agent.live;

import io.qv4j.agent.boot.AgentThread;
import io.qv4j.agent.log.Log;
import io.qv4j.agent.place.PlacementEvents;
import io.qv4j.agent.place.Pool;
import io.qv4j.agent.place.Worker;
import io.qv4j.agent.report.Json;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * What a running agent shows outside: the placement report in the JVM's agent properties (read by
 * {@code qv-agent.jar status} through the Attach API), Flight Recorder events, and the
 * {@code io.qv4j:type=Agent} MXBean. Placement calls the static methods below, one line each; they
 * cost a volatile write when nothing is watching. The work happens on one daemon thread,
 * {@code qv-status}, started once the agent is ready: it publishes first {@link #FIRST_PUBLISH_MILLIS}
 * after start-up (at once after a dynamic attach), then republishes the report at most every
 * {@link #COALESCE_MILLIS} after a change (longer where a publish is dear: the thread keeps to
 * 1/{@link #PUBLISH_SHARE} of a PU), and registers the MXBean once a platform MBean server
 * exists (someone uses JMX), never creating one itself. While {@code status --watch} watches this
 * JVM (it touches {@code watch-PID} in the claims directory, owner-only, at each refresh), the
 * report is republished every {@link #WATCH_MILLIS} with the pools' counters; otherwise that costs
 * one {@code stat} a second.
 */
public final class Live implements Runnable {

    static final long COALESCE_MILLIS = 100;
    /**
     * A publish is followed by at least this many times its own cost before the next: the report
     * grows with the pools (it keeps up to 64 ended ones) and serialising it every 100 ms while
     * pools come and go took a quarter of the churn benchmark's time on 2 PUs. Not while
     * {@code status --watch} watches: it asked for the counters every {@link #WATCH_MILLIS}.
     */
    static final int PUBLISH_SHARE = 20;
    /** Nothing is published sooner after start-up: a short run pays nothing for being watchable. */
    static final long FIRST_PUBLISH_MILLIS = 1000;
    static final long MX_POLL_MILLIS = 1000;
    /** How often a watched JVM republishes, and how long a watch request stays fresh. */
    static final long WATCH_MILLIS = 500;
    static final long WATCH_FRESH_MILLIS = 3000;

    private static volatile Path watchFile;

    private static volatile Supplier<Properties> props;
    private static volatile Supplier<Map<String, Object>> report;
    private static volatile String args;
    private static volatile boolean attached;
    private static volatile long since;
    private static volatile boolean dirty;
    private static volatile Thread thread;
    private static boolean ready;

    private Live() {
    }

    /**
     * The agent is on: remembered here at no cost; for a dynamic attach the marker is published at
     * once, so the attaching command sees it when {@code loadAgent} returns.
     */
    public static synchronized void started(Supplier<Properties> agentProperties, Supplier<Map<String, Object>> r, String args, boolean attached) {
        props = agentProperties;
        report = r;
        Live.args = args == null ? "" : args;
        Live.attached = attached;
        since = System.currentTimeMillis();
        if (attached) publishMarker();
        if (ready) begin();
    }

    /** Where a {@code status --watch} asks this JVM to republish often ({@code Claims.watchFile()}); null when there are no claims. */
    public static void watchedThrough(Path file) {
        watchFile = file;
    }

    /** Whether a watcher touched the watch file lately (a link or anything but a regular file does not count). */
    static boolean watched() {
        Path f = watchFile;
        if (f == null) return false;
        try {
            BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return a.isRegularFile() && System.currentTimeMillis() - a.lastModifiedTime().toMillis() < WATCH_FRESH_MILLIS;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** A dynamic attach refused its options: the attaching command reads this message. */
    public static void refusedAttach(Supplier<Properties> agentProperties, String message) {
        AgentProps.put(agentProperties, AgentProps.ERROR, message);
    }

    /** The background start-up is done (called on the agent's own start-up thread): publishing begins. */
    public static synchronized void ready() {
        ready = true;
        if (report != null) begin();
    }

    private static void begin() {
        if (thread != null) return;
        Thread t = new AgentThread("qv-status", new Live());
        thread = t;
        dirty = true;
        t.start();
    }

    private static void publishMarker() {
        AgentProps.put(props, AgentProps.ERROR, null);
        AgentProps.put(props, AgentProps.AGENT, "{\"args\": " + Json.write(args).strip() + ", \"attached\": " + attached + ", \"since\": " + since + "}");
    }

    /** Placement changed: the published report is refreshed shortly. */
    public static void changed() {
        if (dirty) return;
        dirty = true;
        Thread t = thread;
        if (t != null) LockSupport.unpark(t);
    }

    /** A worker was bound (or, {@code binds} false, placed without binding: dry run, bind=off). */
    public static void placed(Pool p, Worker w, boolean binds) {
        changed();
        if (!Flight.active()) return;
        if (binds && !w.bound()) Flight.refused(p, w, "the kernel refused the mask");
        else Flight.placed(p, w);
    }

    /** A worker was not bound as planned; {@code reason} says why. */
    public static void refused(Pool p, Worker w, String reason) {
        changed();
        if (Flight.active()) Flight.refused(p, w, reason);
    }

    /** A pool's slots were planned (first worker, or again after a resize). */
    public static void planned(Pool p) {
        changed();
        if (Flight.active()) Flight.planned(p);
    }

    /** A rebalance re-split the JVM scope; {@code summary} is its verbose line. */
    public static void rebalanced(String summary, int pools) {
        changed();
        if (Flight.active()) Flight.rebalanced(summary, pools);
    }

    /** The neighbours watcher moved a waiting worker. */
    public static void moved(Pool p, Worker w, String why) {
        changed();
        if (Flight.active()) Flight.moved(p, w, why);
    }

    /** The neighbours watcher released a pool to its scope. */
    public static void released(Pool p, String why) {
        changed();
        if (Flight.active()) Flight.released(p, why);
    }

    /** These events, for the placer. */
    public static PlacementEvents events() {
        return new PlacementEvents() {
            @Override
            public void planned(Pool p) {
                Live.planned(p);
            }

            @Override
            public void placed(Pool p, Worker w, boolean binds) {
                Live.placed(p, w, binds);
            }

            @Override
            public void refused(Pool p, Worker w, String reason) {
                Live.refused(p, w, reason);
            }

            @Override
            public void changed() {
                Live.changed();
            }

            @Override
            public void rebalanced(String summary, int pools) {
                Live.rebalanced(summary, pools);
            }

            @Override
            public void moved(Pool p, Worker w, String why) {
                Live.moved(p, w, why);
            }

            @Override
            public void released(Pool p, String why) {
                Live.released(p, why);
            }
        };
    }

    /** The current report, or null before the agent is on. */
    static Map<String, Object> snapshot() {
        Supplier<Map<String, Object>> r = report;
        return r == null ? null : r.get();
    }

    /** How long to gather changes before the next publish, given what the last one cost. */
    static long pauseAfter(long publishNanos) {
        return Math.max(COALESCE_MILLIS, PUBLISH_SHARE * Math.max(0, publishNanos) / 1_000_000L);
    }

    /** Publishes the current report; returns how long to wait before the next publish. */
    private static long publish() {
        dirty = false;
        long t0 = System.nanoTime();
        try {
            Map<String, Object> m = snapshot();
            if (m != null) AgentProps.put(props, AgentProps.REPORT, Json.write(m));
        } catch (RuntimeException | LinkageError e) {
            Log.once("status:" + e.getClass().getName(), "status: cannot publish the report (" + e + ")");
        }
        return pauseAfter(System.nanoTime() - t0);
    }

    @Override
    public void run() {
        long pause = COALESCE_MILLIS;
        try {
            if (!attached) {
                Thread.sleep(FIRST_PUBLISH_MILLIS);
                // the report before the marker: status never finds the agent on with no report
                pause = publish();
                publishMarker();
            }
        } catch (InterruptedException e) {
            return;
        }
        boolean mx = false;
        boolean watching = false;
        long nextMx = System.nanoTime() + MX_POLL_MILLIS * 1_000_000L;
        while (true) {
            try {
                if (!dirty) {
                    long wait = mx ? Long.MAX_VALUE : nextMx - System.nanoTime();
                    // with claims, the watch file is looked at once a second, twice while someone watches
                    if (watchFile != null) wait = Math.min(wait, (watching ? WATCH_MILLIS : 2 * WATCH_MILLIS) * 1_000_000L);
                    if (wait == Long.MAX_VALUE) LockSupport.park(this);
                    else LockSupport.parkNanos(this, Math.max(1, wait));
                    watching = watched();
                    if (watching) dirty = true;
                }
                if (!mx && System.nanoTime() - nextMx >= 0) {
                    mx = Mx.registerIfJmxInUse();
                    nextMx = System.nanoTime() + MX_POLL_MILLIS * 1_000_000L;
                }
                if (dirty) {
                    // a watcher asked for the counters every WATCH_MILLIS: its cadence is not stretched
                    Thread.sleep(watching ? COALESCE_MILLIS : pause);
                    pause = publish();
                }
            } catch (InterruptedException e) {
                return;
            } catch (Throwable t) {
                Log.once("status:" + t.getClass().getName(), "status: cannot publish the report (" + t + ")");
            }
        }
    }
}
