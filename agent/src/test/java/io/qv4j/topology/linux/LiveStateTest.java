package io.qv4j.topology.linux;

import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

class LiveStateTest {

    private static void write(Path root, String rel, String text) throws Exception {
        Path p = root.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
    }

    private static Path machine(Path root) throws Exception {
        write(root, "proc/sys/kernel/random/boot_id", "0f0e0d0c-0000-4000-8000-000000000001\n");
        write(root, "sys/devices/system/cpu/online", "0-3\n");
        write(root, "sys/devices/system/node/online", "0\n");
        write(root, "proc/thread-self/status", "Name:\tjava\nCpus_allowed_list:\t0-3\n");
        Files.createDirectories(root.resolve("sys/bus/pci/devices/0000:00:01.0"));
        Files.createDirectories(root.resolve("sys/class/net/eth0"));
        return root;
    }

    private static String fingerprint(Path root) {
        SysfsReader.LiveState s = SysfsReader.state(new FsRoot(root), true);
        assertNotNull(s);
        return s.fingerprint();
    }

    @Test
    void theStateChangesWithTheBootTheCpusTheAllowedSetAndTheDevices(@TempDir Path tmp) throws Exception {
        Path root = machine(tmp);
        String before = fingerprint(root);
        assertEquals(before, fingerprint(root), "the same machine reads the same");
        assertEquals(CpuSet.range(0, 3), SysfsReader.state(new FsRoot(root), true).allowed());
        String[][] changes = {
            {"proc/sys/kernel/random/boot_id", "0f0e0d0c-0000-4000-8000-000000000002\n"},
            {"sys/devices/system/cpu/online", "0-2\n"},
            {"sys/devices/system/node/online", "0-1\n"},
            {"proc/thread-self/status", "Name:\tjava\nCpus_allowed_list:\t1\n"},
            {"sys/bus/pci/devices/0000:00:02.0/class", "0x030000\n"},
            {"sys/class/net/eth1/type", "1\n"},
        };
        for (String[] c : changes) {
            Path copy = machine(Files.createTempDirectory(tmp, "m"));
            write(copy, c[0], c[1]);
            assertNotEquals(before, fingerprint(copy), "after a change of " + c[0]);
        }
        assertNotEquals(before, SysfsReader.state(new FsRoot(root), false).fingerprint(), "whether CPUID may be asked");
    }

    @Test
    void theAllowedSetIsTheThreadsWithinTheCgroupsCpuset(@TempDir Path tmp) throws Exception {
        Path root = machine(tmp);
        write(root, "proc/thread-self/status", "Cpus_allowed_list:\t1-3\n");
        assertEquals(CpuSet.range(1, 3), SysfsReader.state(new FsRoot(root), true).allowed());
    }

    @Test
    void withoutABootIdThereIsNoStateToTrust(@TempDir Path tmp) throws Exception {
        Path root = machine(tmp);
        Files.delete(root.resolve("proc/sys/kernel/random/boot_id"));
        assertNull(SysfsReader.state(new FsRoot(root), true));
    }
}
