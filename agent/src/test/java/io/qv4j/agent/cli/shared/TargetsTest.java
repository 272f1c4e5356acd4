package io.qv4j.agent.cli.shared;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Why a process cannot be read, from a fake {@code /proc/PID}: gone, a zombie, or ended while attaching. */
class TargetsTest {

    @TempDir
    Path proc;

    Path process(String state) throws IOException {
        Path p = Files.createDirectories(proc.resolve("4242"));
        Files.writeString(p.resolve("stat"), "4242 (java (x)) " + state + " 4200 4242 0 0 0\n");
        return p;
    }

    @Test
    void aRunningProcessHasNotEnded() throws IOException {
        assertNull(Targets.ended(process("S")));
        assertNull(Targets.ended(process("R")));
    }

    @Test
    void aZombieIsSaidAsOneWithItsParent() throws IOException {
        assertEquals("the process is a zombie (exited, not yet reaped by its parent 4200)", Targets.ended(process("Z")));
    }

    @Test
    void aMissingProcessIsNoSuchProcess() {
        assertEquals("no such process", Targets.ended(proc.resolve("4242")));
    }

    @Test
    void attachingToAZombieSaysSoNotNotAJvm() throws Exception {
        // a child that exits after its shell became a sleep that never waits for it (this JVM's
        // reaper would); exiting at once, the shell itself could still reap it before its exec
        Process p = new ProcessBuilder("sh", "-c", "sleep 0.3 & echo $!; exec sleep 60").start();
        try {
            long pid = Long.parseLong(new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream())).readLine().strip());
            Path stat = Path.of("/proc", Long.toString(pid), "stat");
            for (int i = 0; i < 300 && !Files.readString(stat).contains(") Z "); i++) Thread.sleep(10);
            Targets.Refusal r = org.junit.jupiter.api.Assertions.assertThrows(Targets.Refusal.class, () -> Targets.attach(pid));
            assertEquals(pid + ": the process is a zombie (exited, not yet reaped by its parent " + p.pid() + ")", r.getMessage());
        } finally {
            p.destroyForcibly().waitFor();
        }
    }

    @Test
    void anAttachThatFailsBecauseTheJvmExitedSaysSo() throws IOException {
        Path p = process("S");
        assertEquals("4242: cannot attach: x", Targets.refusal(4242, p, "cannot attach: x").getMessage(), "a JVM still running: the error as it came");
        assertEquals("4242: the JVM exited while attaching", Targets.refusal(4242, process("Z"), "not a JVM (?)").getMessage(), "killed, not yet reaped");
        Files.delete(p.resolve("stat"));
        Files.delete(p);
        assertEquals("4242: the JVM exited while attaching",
                Targets.refusal(4242, p, "the JVM does not accept attach (started with -XX:+DisableAttachMechanism?): Unable to parse namespace").getMessage());
    }
}
