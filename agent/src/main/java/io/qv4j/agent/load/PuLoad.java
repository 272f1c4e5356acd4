package io.qv4j.agent.load;

import io.qv4j.topology.CpuSet;

import java.util.HashMap;
import java.util.Map;

/**
 * What ran on each PU over a window, less this JVM's own threads (each thread's CPU time counted
 * on the PU it last ran on, half on each where that changed: exact for a pinned worker, a guess for
 * a thread the kernel moves about), as a fraction of the window; and for the threads a reading
 * asked about, the fraction of the window they waited on a run queue. The guess is bounded by what
 * is known exactly: others' load over all PUs together is the PUs' busy time less the whole JVM's
 * CPU time (threads that ended included), so where the JVM's floating threads ran elsewhere than
 * they were last seen (its start-up, on a machine of many PUs) what is left over is scaled down to
 * that total, and a JVM alone on the machine sees no one else. For the same threads, the
 * fraction of the window each ran. Immutable.
 */
public final class PuLoad {

    /** A PU at least this busy with others' work is busy: plans leave it out, a worker there may be contended. */
    public static final double BUSY = 0.25;
    /** A PU a worker moves to is at most this busy with others' work. */
    public static final double IDLE = 0.10;
    /** A worker that waited at least this share of the window for its PU, which others keep busy, is contended. */
    public static final double WAIT = 0.20;
    /**
     * Less of others' time than this on each PU of a piece, over the window, is a tick or so of
     * some passing process ({@code /proc/stat} counts in 10 ms), not evidence: in the 20-30 ms
     * window a JVM's first pool sees, one tick reads 33 % and one and a half 50 %. Another JVM
     * starting beside it shows more (22-36 ms of 37-83 here).
     */
    public static final double EVIDENCE_MILLIS = 20;

    private final double[] foreign;
    private final Map<Long, Double> waited;
    private final Map<Long, Double> ran;
    private final long nanos;

    PuLoad(double[] foreign, Map<Long, Double> waited, Map<Long, Double> ran, long nanos) {
        this.foreign = foreign;
        this.waited = waited;
        this.ran = ran;
        this.nanos = nanos;
    }

    /** For tests and tools: each PU's load from others by OS index, and the threads' wait shares. */
    public static PuLoad of(double[] foreign, Map<Long, Double> waited, long nanos) {
        return of(foreign, waited, Map.of(), nanos);
    }

    /** The same with the threads' run shares. */
    public static PuLoad of(double[] foreign, Map<Long, Double> waited, Map<Long, Double> ran, long nanos) {
        return new PuLoad(foreign.clone(), Map.copyOf(waited), Map.copyOf(ran), nanos);
    }

    /** The view from reading {@code a} to the later reading {@code b}. */
    public static PuLoad between(LoadMeter.Sample a, LoadMeter.Sample b) {
        int n = b.busy().length;
        double[] own = new double[n];
        Map<Long, Double> waited = new HashMap<>();
        Map<Long, Double> ran = new HashMap<>();
        long window = Math.max(1, b.nanos() - a.nanos());
        for (Map.Entry<Long, long[]> e : b.threads().entrySet()) {
            long[] now = e.getValue();
            long[] before = a.threads().get(e.getKey());
            long ticks = now[0] - (before == null ? 0 : before[0]);
            if (ticks > 0 && now[1] >= 0 && now[1] < n) {
                // a thread seen on two PUs ran on both, as far as anyone can tell: half each
                boolean moved = before != null && before[1] != now[1] && before[1] >= 0 && before[1] < n;
                own[(int) now[1]] += moved ? ticks / 2.0 : ticks;
                if (moved) own[(int) before[1]] += ticks / 2.0;
            }
            if (now[3] >= 0 && before != null && before[3] >= 0 && now[3] >= before[3]) {
                waited.put(e.getKey(), Math.min(1.0, (now[3] - before[3]) / (double) window));
            }
            if (now[2] >= 0 && before != null && before[2] >= 0 && now[2] >= before[2]) {
                ran.put(e.getKey(), Math.min(1.0, (now[2] - before[2]) / (double) window));
            }
        }
        double[] left = new double[n];
        double leftSum = 0, busySum = 0;
        for (int i = 0; i < n; i++) {
            double busy = b.busy()[i] - (i < a.busy().length ? a.busy()[i] : 0);
            busySum += Math.max(0, busy);
            left[i] = Math.max(0, busy - own[i]);
            leftSum += left[i];
        }
        // others' work over all PUs is known exactly where the JVM's total is: no more is left over than that
        double scale = 1;
        if (a.own() >= 0 && b.own() >= a.own() && leftSum > 0) scale = Math.min(1, Math.max(0, busySum - (b.own() - a.own())) / leftSum);
        double[] foreign = new double[n];
        for (int i = 0; i < n; i++) {
            long all = b.all()[i] - (i < a.all().length ? a.all()[i] : 0);
            foreign[i] = all <= 0 ? 0 : Math.min(1, left[i] * scale / all);
        }
        return new PuLoad(foreign, waited, ran, window);
    }

    /** PU {@code pu}'s load from others over the window, 0 to 1 (0 for a PU never read). */
    public double of(int pu) {
        return pu >= 0 && pu < foreign.length ? foreign[pu] : 0;
    }

    /** The mean load from others over the PUs of {@code c} (0 for an empty set). */
    public double mean(CpuSet c) {
        int n = 0;
        double sum = 0;
        for (int pu : c.toArray()) {
            sum += of(pu);
            n++;
        }
        return n == 0 ? 0 : sum / n;
    }

    /**
     * {@link #mean}, or 0 where it comes to less than {@link #EVIDENCE_MILLIS} per PU over the
     * window: what a plan may act on. The watcher's later looks correct what a short window missed.
     */
    public double evident(CpuSet c) {
        double m = mean(c);
        return m * nanos / 1e6 < EVIDENCE_MILLIS ? 0 : m;
    }

    /** The PUs of {@code within} at least {@link #BUSY} busy with others' work. */
    public CpuSet busy(CpuSet within) {
        java.util.BitSet b = new java.util.BitSet();
        for (int pu : within.toArray()) if (of(pu) >= BUSY) b.set(pu);
        return CpuSet.of(b);
    }

    /** The share of the window thread {@code tid} waited for a PU, or -1 when not measured. */
    public double waited(long tid) {
        Double w = waited.get(tid);
        return w == null ? -1 : w;
    }

    /** The share of the window thread {@code tid} ran, or -1 when not measured. */
    public double ran(long tid) {
        Double r = ran.get(tid);
        return r == null ? -1 : r;
    }

    /** The window's length in milliseconds. */
    public long millis() {
        return nanos / 1_000_000;
    }

    /** {@code 0 97 %, 1 3 %}: each PU of {@code within} and its load from others, for verbose lines. */
    public String describe(CpuSet within) {
        StringBuilder s = new StringBuilder();
        for (int pu : within.toArray()) s.append(s.length() == 0 ? "" : ", ").append(pu).append(' ').append(Math.round(of(pu) * 100)).append(" %");
        return s.toString();
    }

    /** {@code pus 0 (97 %), 3 (40 %)}: the busy PUs of {@code within} and their load, for messages. */
    public String describeBusy(CpuSet within) {
        StringBuilder s = new StringBuilder();
        for (int pu : busy(within).toArray()) {
            s.append(s.length() == 0 ? "" : ", ").append(pu).append(" (").append(Math.round(of(pu) * 100)).append(" %)");
        }
        return s.length() == 0 ? "none" : "pus " + s;
    }
}
