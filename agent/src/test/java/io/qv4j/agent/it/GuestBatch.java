package io.qv4j.agent.it;

import io.qv4j.agent.cli.plan.PlanOracle;
import io.qv4j.topology.CpuSet;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The checks of one guest boot, written as named sections of one shell script (a boot and a JVM
 * there cost seconds, so one boot runs them all); the output read back by section. Also the
 * battery of splits that {@link io.qv4j.testapps.SplitsApp} runs: every split-at and color for
 * pools of 1, 2, P (the pieces) and P + 1, of both pool kinds, each with a rule of its own.
 */
final class GuestBatch {

    static final String JAVA = "/jdk/bin/java";
    static final String AGENT = "/qv/qv-agent.jar";
    static final String CP = "/qv/test-classes";
    static final String[] SPLIT_AT = {"pu", "core", "l2", "l3", "numa", "package"};
    static final String[] COLORS = {"packed", "spread", "1"};
    private static final Pattern SECTION = Pattern.compile("(?ms)^=== begin (\\S+)\\n(.*?)^=== end \\1 rc=(\\d+) s=\\d+$");

    /**
     * The batch's preamble. {@code await FILES PATTERN N}: waits until the files (a glob) hold N
     * lines matching PATTERN, at most 2 minutes (a JVM that died must not hold up the rest);
     * {@code jvmpid FILE}: the pid on a test app's {@code jvm pid=PID} line.
     */
    private static final String PREAMBLE = """
            export USER=root HOME=/root
            cd /tmp
            await() { n=0; until [ "$(cat $1 2>/dev/null | grep -c "$2")" -ge "$3" ] || [ $n -ge 240 ]; do sleep 0.5; n=$((n+1)); done; }
            jvmpid() { sed -n 's/^jvm pid=\\([0-9]*\\).*/\\1/p' $1; }
            """;

    private final StringBuilder script = new StringBuilder(PREAMBLE);
    private final Map<String, String> files = new LinkedHashMap<>();

    /** Adds a file of the guest. */
    GuestBatch file(String path, String text) {
        files.put(path, text);
        return this;
    }

    /**
     * Adds commands whose output (stdout and stderr) is the section {@code name}. A section in which
     * a JVM crashed (HotSpot's fatal error report: under TCG a JIT-compiled JDK method was once seen
     * to fault, in the {@code topology} command, where no agent runs) is run again, up to two more
     * times, and says so (one rehearsal saw the {@code topology} command crash twice in a row).
     */
    GuestBatch section(String name, String commands) {
        script.append("echo '=== begin ").append(name).append("'; t0=$(date +%s)\n")
                .append("for try in 1 2 3; do (\n").append(commands).append("\n) > /tmp/section.out 2>&1; rc=$?\n")
                .append("if [ $try -lt 3 ] && grep -q 'A fatal error has been detected by the Java Runtime' /tmp/section.out; then ")
                .append("echo '(a JVM crashed under TCG: the section runs again)'; else break; fi; done; cat /tmp/section.out\n")
                .append("echo \"=== end ").append(name).append(" rc=$rc s=$(($(date +%s) - t0))\"\n");
        return this;
    }

    /** A JVM with the agent, {@code options}, running a test app. */
    static String java(String options, String mainAndArgs) {
        return JAVA + " -javaagent:" + AGENT + (options.isEmpty() ? "" : "=" + options) + " -cp " + CP + " " + mainAndArgs;
    }

    /**
     * Skips the calling test where no guest can boot here, naming what to install; with {@code CI}
     * set that fails it instead. Call it from {@code @BeforeEach}: a skip in {@code @BeforeAll} hides
     * the class's tests from the reports.
     */
    static void assumeGuest() {
        Optional<String> why = Guest.unavailable();
        if (why.isPresent() && System.getenv("CI") != null) fail("cannot boot the multi-socket guest: " + why.get());
        assumeTrue(why.isEmpty(), () -> "cannot boot the multi-socket guest: " + why.orElse(""));
    }

    /** Boots {@code shape} once with these sections; null where no guest can boot ({@link #assumeGuest()} skips then). */
    Output boot(Guest.Shape shape, Duration timeout) throws Exception {
        if (Guest.unavailable().isPresent()) return null;
        String all = Guest.run(shape, files, script.toString(), timeout);
        // kept for a reader of a failure: the assertions show one section each
        Path log = Path.of("target", "guest-" + shape.toString().replace(' ', '_') + ".log");
        if (Files.isDirectory(log.getParent())) Files.writeString(log, all);
        return new Output(all);
    }

    /** The console output by section. */
    static final class Output {
        final String all;
        final Map<String, String> sections = new LinkedHashMap<>();
        final Map<String, Integer> exits = new LinkedHashMap<>();

        Output(String all) {
            this.all = all;
            Matcher m = SECTION.matcher(all);
            while (m.find()) {
                sections.put(m.group(1), m.group(2));
                exits.put(m.group(1), Integer.parseInt(m.group(3)));
            }
        }

        /** Section {@code name}'s output; fails naming the whole output's tail when it is missing. */
        String get(String name) {
            String s = sections.get(name);
            if (s == null) fail("no section " + name + " in the guest's output:\n" + tail(all));
            return s;
        }

        static String tail(String s) {
            return s.length() <= 6000 ? s : "..." + s.substring(s.length() - 6000);
        }
    }

    /** One pool of the battery. */
    record Case(String id, String splitAt, String color, String kind, int tasks) {
    }

    /** The battery for a machine of these piece counts (by split-at). */
    static List<Case> battery(Map<String, Integer> pieces) {
        List<Case> out = new ArrayList<>();
        for (String at : SPLIT_AT) {
            int p = pieces.get(at);
            for (String color : COLORS) {
                for (String kind : new String[] {"tpe", "fj"}) {
                    for (int tasks : new java.util.TreeSet<>(List.of(1, 2, p, p + 1))) out.add(new Case("c" + out.size(), at, color, kind, tasks));
                }
            }
        }
        return out;
    }

    /**
     * The rules file that gives each case's pool its own policy, matched by its workers' names.
     * The battery checks the split's structure against the {@code plan} command, so the load view
     * is off: under TCG a PU the guest's own kernel keeps busy for a moment rightly moves a pool to
     * another whole piece (seen once in CI: a pool of one on PU 1, planned on PU 0). The load view's
     * choices are checked with it on by the two- and four-JVM sections (whole nodes) and the busy
     * neighbour's.
     */
    static String rules(List<Case> cases) {
        StringBuilder s = new StringBuilder("neighbours = off\n");
        for (Case c : cases) {
            s.append("rule.").append(c.id).append(".match.thread = ").append(c.id).append("-*\n");
            s.append("rule.").append(c.id).append(".split-at = ").append(c.splitAt).append('\n');
            s.append("rule.").append(c.id).append(".color = ").append(c.color).append('\n');
        }
        return s.toString();
    }

    /** SplitsApp's cases file. */
    static String casesFile(List<Case> cases) {
        StringBuilder s = new StringBuilder();
        for (Case c : cases) s.append(c.id).append(' ').append(c.kind).append(' ').append(c.tasks).append('\n');
        return s.toString();
    }

    /** {@code case ID cpus=LIST} lines: each case's workers' masks, sorted. */
    static Map<String, List<String>> masks(String output, String idPrefix) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        Matcher m = Pattern.compile("(?m)^case (" + Pattern.quote(idPrefix) + "\\S*) cpus=(\\S+)$").matcher(output);
        while (m.find()) out.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(CpuSet.parse(m.group(2)).toString());
        out.values().forEach(l -> l.sort(null));
        return out;
    }

    /** The plan command's answer for a case on the machine {@code xml}, sorted as {@link #masks} are. */
    static List<String> planned(String xml, Case c) {
        List<String> cpus = new ArrayList<>(PlanOracle.cpus(xml, c.splitAt, c.color, c.tasks));
        cpus.sort(null);
        return cpus;
    }
}
