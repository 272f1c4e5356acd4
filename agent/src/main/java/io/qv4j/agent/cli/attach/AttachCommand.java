package io.qv4j.agent.cli.attach;

import io.qv4j.agent.cli.shared.AgentJar;
import io.qv4j.agent.cli.shared.Args;
import io.qv4j.agent.cli.shared.JsonValues;
import io.qv4j.agent.cli.shared.Targets;
import io.qv4j.agent.cli.shared.UsageException;
import io.qv4j.agent.cli.status.StatusCommand;
import io.qv4j.agent.report.JsonReader;
import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.VirtualMachine;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code attach PID [key=value,...] [--wait MILLIS] [--format text|json]}: loads this jar as an
 * agent into a running JVM with the options as given ({@code VirtualMachine.loadAgent}), then prints
 * the target's own answer: what it placed, or the option error it refused (exit 2). An agent that
 * is already there is left alone.
 */
public final class AttachCommand {

    public static final long DEFAULT_WAIT_MILLIS = 2000;

    private AttachCommand() {
    }

    public static int run(List<String> argv, PrintStream out, PrintStream err) {
        Args args = Args.parse("attach", argv, Set.of("--wait", "--format"), Set.of(), true);
        String format = args.choice("--format", "text", "text", "json");
        List<String> ops = args.positional();
        if (ops.isEmpty() || ops.size() > 2) throw new UsageException("attach: give PID [key=value,...]");
        long pid = StatusCommand.pids("attach", ops.subList(0, 1)).get(0);
        String options = ops.size() > 1 ? ops.get(1) : "";
        long wait = args.has("--wait") ? args.positiveInt("--wait") : DEFAULT_WAIT_MILLIS;
        String jar = AgentJar.path("attach");
        VirtualMachine vm;
        try {
            vm = Targets.attach(pid);
        } catch (Targets.Refusal r) {
            err.println("qv: " + r.getMessage());
            return 1;
        }
        try {
            Targets.Published before = Targets.published(vm);
            if (before.marker() != null) {
                String bad = AgentJar.badOptions(options);
                if (bad != null) {
                    err.println("qv: " + pid + ": " + bad);
                    return 2;
                }
                Map<String, Object> m = JsonValues.map(JsonReader.parse(before.marker()));
                out.println(pid + ": the qv4j agent is already there (" + describe(m) + "): nothing changed");
                return 0;
            }
            if (dynamicLoadWarning(pid, before.system().getProperty("java.specification.version"))) {
                err.println("qv: note: the target (Java " + before.system().getProperty("java.version") + ") prints a warning about a dynamically loaded agent;"
                        + " start it with -XX:+EnableDynamicAgentLoading to allow this quietly");
            }
            String loadError = null;
            try {
                vm.loadAgent(jar, options);
            } catch (AgentInitializationException e) {
                loadError = "the agent refused to start: " + e.getMessage();
            } catch (AgentLoadException e) {
                loadError = "the target refused to load the agent (" + e.getMessage() + ")";
            }
            Targets.Published after = Targets.published(vm);
            if (after.marker() == null) {
                if (after.error() != null) {
                    err.println("qv: " + pid + ": " + after.error());
                    return 2;
                }
                err.println("qv: " + pid + ": " + (loadError != null ? loadError : "the agent did not start (enabled=false?)"));
                return loadError != null ? 1 : 0;
            }
            long deadline = System.nanoTime() + wait * 1_000_000L;
            while (System.nanoTime() < deadline && !settled(after)) {
                Thread.sleep(50);
                after = Targets.published(vm);
            }
            Map<String, Object> status = StatusCommand.of(pid, after);
            if (format.equals("json")) out.print(io.qv4j.agent.report.Json.write(status));
            else {
                out.println(pid + ": agent loaded (" + (options.isEmpty() ? "defaults" : options) + ")");
                StatusCommand.text(status, out);
            }
            return 0;
        } catch (IOException e) {
            err.println("qv: " + pid + ": " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        } finally {
            try {
                vm.detach();
            } catch (IOException ignored) {
                // gone
            }
        }
    }

    /** A report is out and each pinned pool has as many placed live workers as it has tasks (one, unbounded). */
    private static boolean settled(Targets.Published p) {
        if (p.report() == null) return false;
        Map<String, Object> r = JsonValues.map(JsonReader.parse(p.report()));
        boolean any = false;
        for (Object o : JsonValues.list(r.get("pools"))) {
            Map<String, Object> pool = JsonValues.map(o);
            if (!Boolean.TRUE.equals(pool.get("pinned"))) continue;
            any = true;
            long want = pool.get("tasks") instanceof Number n && n.longValue() > 0 ? n.longValue() : 1;
            long placed = 0;
            for (Object t : JsonValues.list(pool.get("threads"))) {
                Map<String, Object> w = JsonValues.map(t);
                // planned and past its bind (its tid is set there): a report published between the two would show it "not bound"
                if (!Boolean.TRUE.equals(w.get("exited")) && w.get("cpuset") != null && w.get("tid") instanceof Number tid && tid.longValue() > 0) placed++;
            }
            if (placed < want) return false;
        }
        return any;
    }

    private static String describe(Map<String, Object> marker) {
        String args = String.valueOf(marker.get("args"));
        return (args.isEmpty() ? "defaults" : "options " + args) + (Boolean.TRUE.equals(marker.get("attached")) ? ", attached" : ", from the command line");
    }

    /** JDK 21+ warns when an agent is loaded into it dynamically, unless started with -XX:+EnableDynamicAgentLoading. */
    static boolean dynamicLoadWarning(long pid, String spec) {
        try {
            if (spec == null || Integer.parseInt(spec.split("\\.")[0]) < 21) return false;
        } catch (NumberFormatException e) {
            return false;
        }
        try {
            String cmd = new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")), StandardCharsets.UTF_8);
            return !cmd.contains("-XX:+EnableDynamicAgentLoading");
        } catch (IOException e) {
            return true;
        }
    }
}
