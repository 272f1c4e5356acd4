package io.qv4j.topology.linux;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The cgroup CPU quota, v1 and v2, from small fake roots. */
class CgroupQuotaTest {

    @TempDir
    Path root;

    void write(String rel, String text) throws IOException {
        Path p = root.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
    }

    @Test
    void parse() {
        assertEquals(2.0, CgroupQuota.parseV2("200000 100000"));
        assertEquals(0.5, CgroupQuota.parseV2("50000 100000\n"));
        assertNull(CgroupQuota.parseV2("max 100000"));
        assertNull(CgroupQuota.parseV1("-1", "100000"));
        assertEquals(1.5, CgroupQuota.parseV1("150000", "100000"));
        assertNull(CgroupQuota.parseV2("+200000 100000")); // ASCII digits only, as every sysfs number
        assertNull(CgroupQuota.parseV1("150000", "1e5"));
        assertNull(CgroupQuota.parseV1("99999999999999999999", "100000"));
    }

    @Test
    void v2SmallestAlongTheAncestors() throws IOException {
        write("proc/self/mounts", "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid 0 0\n");
        write("proc/self/cgroup", "0::/kubepods/pod1/c1\n");
        write("sys/fs/cgroup/kubepods/cpu.max", "max 100000\n");
        write("sys/fs/cgroup/kubepods/pod1/cpu.max", "150000 100000\n");
        write("sys/fs/cgroup/kubepods/pod1/c1/cpu.max", "300000 100000\n");
        assertEquals(1.5, CgroupQuota.read(root));
    }

    @Test
    void v1() throws IOException {
        write("proc/self/mounts", "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,cpu,cpuacct 0 0\ncgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\n");
        write("proc/self/cgroup", "3:cpu,cpuacct:/docker/abc\n0::/\n");
        write("sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "250000\n");
        write("sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
        assertEquals(2.5, CgroupQuota.read(root));
    }

    @Test
    void none() throws IOException {
        write("proc/self/mounts", "cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n");
        write("proc/self/cgroup", "0::/\n");
        write("sys/fs/cgroup/cpu.max", "max 100000\n");
        assertNull(CgroupQuota.read(root));
        assertNull(CgroupQuota.read(root.resolve("missing")));
    }
}
