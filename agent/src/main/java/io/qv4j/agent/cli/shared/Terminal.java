package io.qv4j.agent.cli.shared;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The terminal: whether an output goes to one (full-screen views and progress lines only there),
 * and the controlling terminal in character mode without echo while {@code status --watch} runs
 * ({@code stty} on {@code /dev/tty}), its settings restored at the end and on Ctrl-C.
 */
public final class Terminal {


    private final String saved;
    private final Thread restore;
    private final InputStream keys;

    private Terminal(String saved, InputStream keys) {
        this.saved = saved;
        this.keys = keys;
        this.restore = new Thread(() -> {
            stty(saved);
            System.out.print("\033[?25h");
            System.out.flush();
        }, "qv-terminal-restore");
        Runtime.getRuntime().addShutdownHook(restore);
    }

    /** Whether standard output is a terminal. */
    public static boolean isTerminal() {
        return isTerminal(1);
    }

    /** Whether the file descriptor {@code fd} is a terminal: {@code /proc/self/fd/FD} leads to a tty or pts device. */
    public static boolean isTerminal(int fd) {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    public static Terminal open() {
        String saved = stty("-g");
        if (saved == null) return null;
        stty("-icanon -echo min 0 time 0");
        return new Terminal(saved.strip(), System.in);
    }

    /** Waits up to {@code millis}; true when {@code q} (or end of input) came. */
    public boolean waitForQuit(long millis) throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) {
            try {
                while (keys.available() > 0) {
                    int k = keys.read();
                    if (k == 'q' || k == 'Q' || k < 0) return true;
                }
            } catch (IOException e) {
                return true;
            }
            Thread.sleep(Math.min(50, Math.max(1, (end - System.nanoTime()) / 1_000_000L)));
        }
        return false;
    }

    public void close() {
        stty(saved);
        try {
            Runtime.getRuntime().removeShutdownHook(restore);
        } catch (IllegalStateException shuttingDown) {
            // the hook restores
        }
    }

    /** Runs {@code stty ARGS} on /dev/tty; its output, or null when it failed. */
    private static String stty(String args) {
        try {
            List<String> cmd = new ArrayList<>(List.of("stty"));
            cmd.addAll(List.of(args.split(" ")));
            Process p = new ProcessBuilder(cmd).redirectInput(new java.io.File("/dev/tty")).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String o = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return p.waitFor() == 0 ? o : null;
        } catch (IOException | RuntimeException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
