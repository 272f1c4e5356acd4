package io.qv4j.topology.linux;

import io.qv4j.topology.HwType;
import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Device;
import io.qv4j.topology.HwObject;
import io.qv4j.topology.Topology;
import io.qv4j.topology.TopologyException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class SysfsReaderTest {

    @TempDir
    Path root;

    /** One package, two cores of two threads (core c = PUs c and c+2), a private L2 per core, one L3. */
    private void fourPuMachine(boolean lists) throws IOException {
        write("sys/devices/system/cpu/online", "0-3");
        for (int pu = 0; pu < 4; pu++) {
            String cpu = "sys/devices/system/cpu/cpu" + pu + "/";
            int core = pu % 2;
            String coreList = core + "," + (core + 2), coreMask = core == 0 ? "00000005" : "0000000a";
            write(cpu + "topology/physical_package_id", "0");
            write(cpu + "topology/core_id", String.valueOf(core));
            write(cpu + "topology/" + (lists ? "thread_siblings_list" : "thread_siblings"), lists ? coreList : coreMask);
            write(cpu + "topology/" + (lists ? "core_siblings_list" : "core_siblings"), lists ? "0-3" : "0000000f");
            cache(cpu + "cache/index0/", 1, "Data", lists, coreList, coreMask);
            cache(cpu + "cache/index1/", 1, "Instruction", lists, coreList, coreMask);
            cache(cpu + "cache/index2/", 2, "Unified", lists, coreList, coreMask);
            cache(cpu + "cache/index3/", 3, "Unified", lists, "0-3", "0000000f");
        }
    }

    private void cache(String dir, int level, String type, boolean lists, String list, String mask) throws IOException {
        write(dir + "size", level == 1 ? "48K" : level == 2 ? "1024K" : "32768K");
        write(dir + "level", String.valueOf(level));
        write(dir + "type", type);
        write(dir + (lists ? "shared_cpu_list" : "shared_cpu_map"), lists ? list : mask);
    }

    @Test
    void cacheSizesComeFromTheSizeFiles() throws IOException {
        fourPuMachine(true);
        Topology t = SysfsReader.read(root);
        for (HwObject l1 : t.objects(HwType.L1)) assertEquals(48 << 10, l1.cacheSize());
        for (HwObject l2 : t.objects(HwType.L2)) assertEquals(1 << 20, l2.cacheSize());
        assertEquals(32L << 20, t.objects(HwType.L3).get(0).cacheSize());
        assertEquals("sysfs", t.info().get("caches.source"));
    }

    @Test
    void aSizeFileNotInTheKernelsFormMeansAnUnknownSize() {
        assertEquals(32 << 10, SysfsReader.cacheSize("32K"));
        assertEquals(8L << 20, SysfsReader.cacheSize("8M"));
        assertEquals(512, SysfsReader.cacheSize("512"));
        for (String bad : new String[] {null, "", "K", "32 K", "32KB", "-1K", "0x20K", "99999999999999999999K", "1e3K"}) {
            assertEquals(0, SysfsReader.cacheSize(bad), String.valueOf(bad));
        }
    }

    @Test
    void aDumpWithOnlyHexMasksGivesTheSameTopologyAsOneWithCpulists(@TempDir Path other) throws IOException {
        fourPuMachine(false);
        Map<String, Object> fromMasks = describe(SysfsReader.read(root));
        root = other;
        fourPuMachine(true);
        Map<String, Object> fromLists = describe(SysfsReader.read(root));

        assertEquals(fromLists, fromMasks);
        assertEquals(List.of("0,2", "1,3"), fromMasks.get("core"));
        assertEquals(List.of("0,2", "1,3"), fromMasks.get("l1")); // instruction caches are not objects
        assertEquals(List.of("0-3"), fromMasks.get("l3"));
        assertEquals(List.of("0-3"), fromMasks.get("package"));
    }

    @Test
    void withoutANodeDirectoryTheMachineIsOneNumaNodeWithAllOnlinePusAndTheMachinesMemory() throws IOException {
        fourPuMachine(true);
        write("proc/meminfo", "MemTotal:        2048 kB\nMemFree:         1024 kB\n");

        Topology t = SysfsReader.read(root);

        assertEquals(1, t.numaNodes().size());
        HwObject node = t.numaNodes().get(0);
        assertEquals(0, node.osIndex());
        assertEquals(CpuSet.parse("0-3"), node.cpuset());
        assertEquals(2048L * 1024, node.memoryBytes());
    }

    @Test
    void numaNodesComeFromNodeDirectoriesWithTheirMemoryAndMemoryOnlyNodesAreKept() throws IOException {
        fourPuMachine(true);
        write("sys/devices/system/node/node0/cpulist", "0-1");
        write("sys/devices/system/node/node0/meminfo", "Node 0 MemTotal:       1000 kB\n");
        write("sys/devices/system/node/node1/cpumap", "0000000c"); // only the hex form
        write("sys/devices/system/node/node5/cpulist", "");         // memory-only (e.g. GPU memory)
        write("sys/devices/system/node/possible", "0-5");

        Topology t = SysfsReader.read(root);

        assertEquals(List.of(0, 1, 5), t.numaNodes().stream().map(HwObject::osIndex).toList());
        assertEquals(List.of("0-1", "2-3", ""), t.numaNodes().stream().map(n -> n.cpuset().toString()).toList());
        assertEquals(1000L * 1024, t.numaNodes().get(0).memoryBytes());
    }

    @Test
    void cgroupV2CpusetRestrictsAllowedWalkingUpToTheNearestLevelThatHasTheFile() throws IOException {
        fourPuMachine(true);
        write("proc/self/status", "Name:\tjava\nCpus_allowed:\tf\nCpus_allowed_list:\t0-3\nMems_allowed:\t1\n");
        write("proc/self/cgroup", "0::/job/step\n");
        write("proc/mounts", "sysfs /sys sysfs rw 0 0\ncgroup2 /sys/fs/cgroup cgroup2 rw,nosuid 0 0\n");
        write("sys/fs/cgroup/job/cpuset.cpus.effective", "1-2");
        Files.createDirectories(root.resolve("sys/fs/cgroup/job/step")); // no cpuset controller at this level

        Topology t = SysfsReader.read(root);

        assertEquals(CpuSet.parse("1-2"), t.allowed());
        assertEquals(CpuSet.parse("0-3"), t.online());
    }

    @Test
    void isolcpusAndAnIsolatedCgroupPartitionAreIsolatedAndNohzFullIsTickless() throws IOException {
        fourPuMachine(true);
        write("sys/devices/system/cpu/isolated", "1");
        write("sys/devices/system/cpu/nohz_full", "1-3");
        write("proc/self/cgroup", "0::/rt/app\n");
        write("proc/mounts", "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid 0 0\n");
        write("sys/fs/cgroup/rt/cpuset.cpus.partition", "isolated");
        write("sys/fs/cgroup/rt/cpuset.cpus.effective", "2-3");
        write("sys/fs/cgroup/rt/app/cpuset.cpus.partition", "member");
        write("sys/fs/cgroup/rt/app/cpuset.cpus.effective", "2-3");

        Topology t = SysfsReader.read(root);

        assertEquals(CpuSet.parse("1-3"), t.isolated());
        assertEquals(CpuSet.parse("1-3"), t.tickless());
    }

    @Test
    void withoutNohzFullTheKernelsNullTextIsNoTicklessPuAndAnInvalidPartitionIsolatesNothing() throws IOException {
        fourPuMachine(true);
        write("sys/devices/system/cpu/isolated", "");
        write("sys/devices/system/cpu/nohz_full", "(null)");
        write("proc/self/cgroup", "0::/rt\n");
        write("proc/mounts", "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid 0 0\n");
        write("sys/fs/cgroup/rt/cpuset.cpus.partition", "isolated invalid (Cpu list in cpuset.cpus not exclusive)");
        write("sys/fs/cgroup/rt/cpuset.cpus.effective", "0-3");

        Topology t = SysfsReader.read(root);

        assertEquals(CpuSet.empty(), t.isolated());
        assertEquals(CpuSet.empty(), t.tickless());
        assertEquals(CpuSet.parse("0-3"), t.allowed());
    }

    @Test
    void cgroupV1CpusetMountedWithNoprefixRestrictsAllowedWithTheAffinity() throws IOException {
        fourPuMachine(true);
        write("proc/self/status", "Cpus_allowed_list:\t0-2\n");
        write("proc/self/cpuset", "/batch/42");
        write("proc/mounts", "none /dev/cpuset cgroup rw,relatime,cpuset,noprefix 0 0\n");
        write("dev/cpuset/batch/42/cpus", "1-3");

        assertEquals(CpuSet.parse("1-2"), SysfsReader.read(root).allowed());
    }

    @Test
    void aRootWithoutSysDevicesSystemCpuIsATopologyExceptionNamingTheRoot() throws IOException {
        write("proc/cpuinfo", "model name\t: nothing else here\n");

        TopologyException e = assertThrows(TopologyException.class, () -> SysfsReader.read(root));

        assertEquals(root + ": not a Linux sysfs root: no sys/devices/system/cpu", e.getMessage());
    }

    @Test
    void aBadCpulistIsATopologyExceptionNamingTheFile() throws IOException {
        fourPuMachine(true);
        write("sys/devices/system/cpu/online", "0-x");

        TopologyException e = assertThrows(TopologyException.class, () -> SysfsReader.read(root));

        assertTrue(e.getMessage().startsWith(root.resolve("sys/devices/system/cpu/online").toString()), e.getMessage());
    }

    @Test
    void withoutAnOnlineFileCpusWhoseOnlineFileSaysZeroAreOffline() throws IOException {
        fourPuMachine(false);
        Files.delete(root.resolve("sys/devices/system/cpu/online"));
        write("sys/devices/system/cpu/cpu3/online", "0");
        write("sys/devices/system/cpu/cpu2/online", "1"); // cpu0 and cpu1 have none, like a boot CPU

        Topology t = SysfsReader.read(root);

        assertEquals(CpuSet.parse("0-2"), t.online());
        assertEquals(List.of("0,2", "1"), describe(t).get("core"));
    }

    @Test
    void threadSiblingsWithDifferentCoreIdsAreSeparateCores() throws IOException {
        // AMD Bulldozer compute units: two cores that the kernel lists as thread siblings
        fourPuMachine(true);
        write("sys/devices/system/cpu/cpu2/topology/core_id", "7");

        assertEquals(List.of("0", "1,3", "2"), describe(SysfsReader.read(root)).get("core"));
    }

    @Test
    void diesAreObjectsOnlyWhereAPackageHasSeveral() throws IOException {
        fourPuMachine(true);
        for (int pu = 0; pu < 4; pu++) write("sys/devices/system/cpu/cpu" + pu + "/topology/die_id", "0");
        assertEquals(List.of(), describe(SysfsReader.read(root)).get("die"));

        write("sys/devices/system/cpu/cpu1/topology/die_id", "1");
        write("sys/devices/system/cpu/cpu3/topology/die_id", "1");
        assertEquals(List.of("0,2", "1,3"), describe(SysfsReader.read(root)).get("die"));
    }

    @Test
    void cpuCapacityGivesEfficiencyRanks() throws IOException {
        fourPuMachine(true);
        int[] capacity = {1024, 1024, 446, 446};
        for (int pu = 0; pu < 4; pu++) write("sys/devices/system/cpu/cpu" + pu + "/cpu_capacity", String.valueOf(capacity[pu]));

        Topology t = SysfsReader.read(root);

        assertEquals(List.of(1, 1, 0, 0), List.of(0, 1, 2, 3).stream().map(pu -> t.pu(pu).efficiency()).toList());
    }

    @Test
    void deviceLocalityIsLocalCpulistThenNumaNodeThenTheWholeMachine() throws IOException {
        fourPuMachine(true);
        write("sys/devices/system/node/node0/cpulist", "0-1");
        write("sys/devices/system/node/node1/cpulist", "2-3");
        String bus = "sys/devices/pci0000:00/";
        gpu(bus + "0000:00:01.0/", "local_cpulist", "1");      // local_cpulist wins over numa_node
        write(bus + "0000:00:01.0/numa_node", "0");
        gpu(bus + "0000:00:02.0/", "numa_node", "1");          // no local cpus: its node
        gpu(bus + "0000:00:03.0/", "numa_node", "-1");         // unknown: whole machine
        gpu(bus + "0000:00:04.0/", "local_cpus", "00000008");  // hex form only
        write(bus + "0000:00:05.0/class", "0x020000");         // a network controller, not a GPU
        for (String id : List.of("0000:00:01.0", "0000:00:02.0", "0000:00:03.0", "0000:00:04.0", "0000:00:05.0")) {
            link("sys/bus/pci/devices/" + id, "../../../devices/pci0000:00/" + id);
        }

        Topology t = SysfsReader.read(root);

        Map<String, String> gpus = new LinkedHashMap<>();
        for (Device d : t.devices(HwType.GPU)) gpus.put(d.pci(), d.locality().toString());
        assertEquals(Map.of("0000:00:01.0", "1", "0000:00:02.0", "2-3", "0000:00:03.0", "0-3", "0000:00:04.0", "3"), gpus);
    }

    private void gpu(String dir, String file, String value) throws IOException {
        write(dir + "class", "0x030000");
        write(dir + file, value);
    }

    @Test
    void nicLinksAbsoluteToTheOriginalRootResolveInsideTheDumpAndLinksLeavingItAreIgnored(@TempDir Path outside) throws IOException {
        fourPuMachine(true);
        String dev = "sys/devices/pci0000:00/0000:00:02.0/";
        write(dev + "class", "0x020000");
        write(dev + "local_cpulist", "2-3");
        Files.createDirectories(root.resolve(dev + "virtio1/net/eth0"));
        link(dev + "virtio1/net/eth0/device", "../../../virtio1");        // a virtio NIC: its PCI function is the parent
        link("sys/class/net/eth0", "/" + dev + "virtio1/net/eth0");       // absolute, as written on the original machine
        // a complete NIC outside the dump, reachable by a relative link the OS would follow: ignored
        Path foreign = outside.resolve("0000:00:09.0");
        Files.createDirectories(foreign.resolve("net/evil"));
        Files.writeString(foreign.resolve("local_cpulist"), "0");
        Files.createSymbolicLink(foreign.resolve("net/evil/device"), Path.of("../.."));
        link("sys/class/net/evil", root.resolve("sys/class/net").relativize(foreign.resolve("net/evil")).toString());
        Files.createDirectories(root.resolve("sys/devices/virtual/net/lo"));
        link("sys/class/net/lo", "../../devices/virtual/net/lo");           // no device: not a NIC

        List<Device> nics = SysfsReader.read(root).devices(HwType.NIC);

        assertEquals(List.of(new Device(HwType.NIC, "0000:00:02.0", "eth0", CpuSet.parse("2-3"))), nics);
    }

    @Test
    void liveDiscoveryAgreesWithCpuOnlineAndProcSelfStatus() throws IOException {
        Path online = Path.of("/sys/devices/system/cpu/online");
        assumeTrue(Files.isReadable(online) && Files.isReadable(Path.of("/proc/self/status")), "not Linux");
        String status = Files.readString(Path.of("/proc/self/status"));
        String allowedList = status.lines().filter(l -> l.startsWith("Cpus_allowed_list:")).findFirst().orElseThrow()
                .substring("Cpus_allowed_list:".length());

        Topology t = SysfsReader.live();

        assertEquals(CpuSet.parse(Files.readString(online)), t.online());
        assertEquals(CpuSet.parse(allowedList).and(t.online()), t.allowed());
        assertEquals("live", t.source());
        assertEquals(t.online().cardinality(), t.pus().size());
        assertEquals(t.online(), t.numaNodes().stream().map(HwObject::cpuset).reduce(CpuSet.empty(), CpuSet::or));
    }

    /** The per-type cpusets of a topology, plus its online and allowed sets. */
    private static Map<String, Object> describe(Topology t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("online", t.online().toString());
        m.put("allowed", t.allowed().toString());
        for (HwType type : List.of(HwType.PACKAGE, HwType.DIE, HwType.NUMANODE, HwType.L3, HwType.L2, HwType.L1, HwType.CORE)) {
            m.put(type.shortName(), t.objects(type).stream().map(o -> o.cpuset().toString()).sorted().toList());
        }
        return m;
    }

    private void write(String rel, String content) throws IOException {
        Path p = root.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
    }

    private void link(String rel, String target) throws IOException {
        Path p = root.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.createSymbolicLink(p, Path.of(target));
    }
}
