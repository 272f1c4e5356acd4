package io.qv4j.agent.cli.shared;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;
import io.qv4j.agent.live.AgentProps;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * Other JVMs of this user, through the Attach API: the same local, owner-only channel jcmd uses
 * (a UNIX socket the target's attach listener answers on its own thread); no network port.
 */
public final class Targets {

    /** Why a PID cannot be read: one line for the user. */
    public static final class Refusal extends Exception {
        private static final long serialVersionUID = 1L;

        public Refusal(String message) {
            super(message);
        }
    }

    /** What the target's agent published: its marker and report (JSON), or the last attach error. */
    public record Published(String marker, String report, String error, Properties system) {
    }

    private Targets() {
    }

    /** The JVMs of this user that the Attach API sees, this one excluded, by PID. */
    public static List<Long> jvms() {
        List<Long> out = new ArrayList<>();
        long me = ProcessHandle.current().pid();
        for (VirtualMachineDescriptor d : VirtualMachine.list()) {
            try {
                long pid = Long.parseLong(d.id());
                if (pid != me) out.add(pid);
            } catch (NumberFormatException ignored) {
                // not a local process id
            }
        }
        out.sort(null);
        return out;
    }

    /**
     * Attaches to {@code pid} after checking, without signalling it, that it is a JVM of this user:
     * the Attach API wakes a JVM with SIGQUIT, which would kill a process that is not one.
     */
    public static VirtualMachine attach(long pid) throws Refusal {
        Path proc = Path.of("/proc", Long.toString(pid));
        if (pid == ProcessHandle.current().pid()) throw new Refusal(pid + ": that is this command itself");
        String ended = ended(proc);
        if (ended != null) throw new Refusal(pid + ": " + ended);
        try {
            int mine = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            int theirs = (Integer) Files.getAttribute(proc, "unix:uid");
            if (mine != theirs) {
                throw new Refusal(pid + ": runs as another user (uid " + theirs + "); only its owner can read or attach to it");
            }
        } catch (IOException | UnsupportedOperationException e) {
            // no uid to compare: the attach below decides
        }
        if (!isJvm(pid)) {
            ended = ended(proc); // an exiting JVM's maps and command line are empty
            throw new Refusal(pid + ": " + (ended != null ? ended : "not a JVM (" + command(pid, 60) + ")"));
        }
        try {
            return VirtualMachine.attach(Long.toString(pid));
        } catch (AttachNotSupportedException e) {
            throw refusal(pid, proc, "the JVM does not accept attach (started with -XX:+DisableAttachMechanism?): " + e.getMessage());
        } catch (IOException e) {
            throw refusal(pid, proc, "cannot attach: " + e.getMessage());
        }
    }

    /**
     * Why attaching to {@code pid} failed: {@code message}, unless the process ended meanwhile (its
     * /proc files vanishing mid-read give misleading errors, "Unable to parse namespace" among them).
     */
    static Refusal refusal(long pid, Path proc, String message) {
        return new Refusal(pid + ": " + (ended(proc) == null ? message : "the JVM exited while attaching"));
    }

    /**
     * Why the process at {@code proc} ({@code /proc/PID}) no longer runs: {@code no such process},
     * or a zombie (state Z or X in its {@code stat}); null while it runs or its state is unreadable.
     */
    public static String ended(Path proc) {
        String stat;
        try {
            stat = Files.readString(proc.resolve("stat"), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            return Files.isDirectory(proc) ? null : "no such process";
        }
        // after the command's closing parenthesis: state, parent PID
        String[] f = stat.substring(stat.lastIndexOf(')') + 1).strip().split(" ");
        if (f.length < 2 || !(f[0].equals("Z") || f[0].equals("X"))) return null;
        return "the process is a zombie (exited, not yet reaped by its parent " + f[1] + ")";
    }

    /** A JVM: listed by the Attach API (its perf data file), or with libjvm mapped. */
    static boolean isJvm(long pid) {
        for (VirtualMachineDescriptor d : VirtualMachine.list()) if (d.id().equals(Long.toString(pid))) return true;
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "maps"), StandardCharsets.ISO_8859_1)) {
                if (line.endsWith("/libjvm.so")) return true;
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    /** What the target's agent published (agent properties; system properties where those were not reachable). */
    public static Published published(VirtualMachine vm) throws IOException {
        Properties a = vm.getAgentProperties();
        String marker = a.getProperty(AgentProps.AGENT);
        String report = a.getProperty(AgentProps.REPORT);
        String error = a.getProperty(AgentProps.ERROR);
        Properties sys = vm.getSystemProperties();
        if (marker == null && sys.getProperty(AgentProps.AGENT) != null) {
            marker = sys.getProperty(AgentProps.AGENT);
            report = sys.getProperty(AgentProps.REPORT);
        }
        if (error == null) error = sys.getProperty(AgentProps.ERROR);
        return new Published(marker, report, error, sys);
    }

    /** The process's command line, cut to {@code max} characters. */
    public static String command(long pid, int max) {
        try {
            byte[] b = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
            String s = new String(b, StandardCharsets.UTF_8).replace('\0', ' ').strip();
            return s.length() > max ? s.substring(0, max - 1) + "…" : s;
        } catch (IOException e) {
            return "?";
        }
    }

    /** The kernel's current mask of a thread ({@code Cpus_allowed_list}), or null when the thread is gone. */
    public static String kernelCpus(long pid, long tid) {
        if (tid <= 0) return null;
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "task", Long.toString(tid), "status"))) {
                if (line.startsWith("Cpus_allowed_list:")) return line.substring(18).strip();
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }
}
