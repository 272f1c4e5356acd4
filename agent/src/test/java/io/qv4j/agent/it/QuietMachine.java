package io.qv4j.agent.it;

import io.qv4j.topology.CpuSet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The premise of the tests that start a neighbour and expect a worker to leave it: the PUs the
 * test does not load are quiet. A CI host's background (a build beside it, a previous test's JVM
 * still compiling) can keep every PU half busy, and then no PU is a better place, whatever the
 * agent does. Busy time is {@code /proc/stat}'s user, nice, system, irq and softirq: steal is the
 * hypervisor's, not a process a worker could step round.
 */
final class QuietMachine {

    /** Busier than this over a look, a PU is not quiet. */
    static final double QUIET = 0.20;
    static final long LOOK_MILLIS = 300;
    static final long PATIENCE_MILLIS = 20_000;
    private static final Pattern EVIDENT = Pattern.compile("others' load over the last (\\d+) ms: (.*)");

    private QuietMachine() {
    }

    /** Waits until every PU of {@code pus} is quiet over one look; skips the test when none comes within {@link #PATIENCE_MILLIS}. */
    static void await(CpuSet pus) throws Exception {
        long end = System.nanoTime() + PATIENCE_MILLIS * 1_000_000L;
        String seen = "";
        while (System.nanoTime() < end) {
            Map<Integer, long[]> a = ticks();
            Thread.sleep(LOOK_MILLIS);
            Map<Integer, long[]> b = ticks();
            StringBuilder s = new StringBuilder();
            boolean quiet = true;
            for (int pu : pus.toArray()) {
                long[] x = a.get(pu), y = b.get(pu);
                if (x == null || y == null || y[1] <= x[1]) continue;
                double busy = (y[0] - x[0]) / (double) (y[1] - x[1]);
                quiet &= busy <= QUIET;
                s.append(s.length() == 0 ? "" : ", ").append(pu).append(' ').append(Math.round(busy * 100)).append(" %");
            }
            if (quiet) return;
            seen = s.toString();
        }
        assumeTrue(false, "the machine was not quiet for " + PATIENCE_MILLIS + " ms (last look: " + seen + "): no PU is a better place");
    }

    /** Whether the agent's verbose line for a pool's plan shows evident load from others (20 ms on a PU, {@code PuLoad.EVIDENCE_MILLIS}). */
    static boolean sawLoad(String stderr) {
        Matcher m = EVIDENT.matcher(stderr);
        while (m.find()) {
            long millis = Long.parseLong(m.group(1));
            for (String pu : m.group(2).split(", ")) {
                String[] w = pu.strip().split(" ");
                if (w.length >= 2 && Long.parseLong(w[1]) * millis >= 20 * 100) return true;
            }
        }
        return false;
    }

    /** Each PU's busy and total ticks. */
    private static Map<Integer, long[]> ticks() throws IOException {
        Map<Integer, long[]> out = new HashMap<>();
        for (String line : Files.readAllLines(Path.of("/proc/stat"))) {
            if (!line.startsWith("cpu") || line.startsWith("cpu ")) continue;
            String[] f = line.split("\\s+");
            long[] v = new long[8];
            for (int i = 0; i < 8 && i + 1 < f.length; i++) v[i] = Long.parseLong(f[i + 1]);
            long busy = v[0] + v[1] + v[2] + v[5] + v[6];
            out.put(Integer.parseInt(f[0].substring(3)), new long[] {busy, busy + v[3] + v[4] + v[7]});
        }
        return out;
    }
}
