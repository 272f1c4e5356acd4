package io.qv4j.agent.platform;

import io.qv4j.agent.bind.Binders;
import io.qv4j.agent.boot.AgentThread;
import io.qv4j.agent.config.Options;
import io.qv4j.agent.io.UserFiles;
import io.qv4j.topology.HwlocXml;
import io.qv4j.topology.SyntheticSpec;
import io.qv4j.topology.Topology;
import io.qv4j.topology.TopologyException;
import io.qv4j.topology.linux.SysfsReader;
import io.qv4j.topology.oshi.OshiTopology;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Where the CLI (and dry runs) get a topology from: the live machine, a dump, a file or a spec. */
public final class TopologyInput {

    /** The largest real hwloc XML files (hundreds of PUs, many PCI devices) are a few MiB. */
    static final long MAX_XML_BYTES = 64L << 20;
    /** The longest a dump may take to read: a real one (thousands of files) takes well under a second. */
    static final long FSROOT_SECONDS = 10;

    private TopologyInput() {
    }

    /**
     * The machine we run on, from sysfs where there is one (OSHI gets Linux topologies wrong,
     * see docs/libraries.md), else from OSHI. The CLI adds OSHI's processor identity.
     */
    public static Topology live() {
        Topology t = Files.isDirectory(Path.of("/sys/devices/system/cpu")) ? SysfsReader.live(Binders.cpuid(Options.Bind.ON)) : OshiTopology.read();
        try {
            return t.withInfo(OshiTopology.identity());
        } catch (RuntimeException | LinkageError e) {
            return t; // identity is decoration: never fail the command for it
        }
    }

    /**
     * A sysfs/procfs dump (like hwloc's {@code HWLOC_FSROOT}), read within {@link #FSROOT_SECONDS}:
     * each file is checked to be a regular one of bounded size before it is read, but a dump on a
     * slow file system, or a file swapped for a FIFO between the check and the open, could still
     * hold the read; the reading thread is a daemon left behind.
     */
    public static Topology fsroot(String dir) {
        return within(dir + ": reading the dump", FSROOT_SECONDS * 1000, () -> SysfsReader.read(Path.of(dir)));
    }

    /** {@code read}'s answer, on a daemon thread given {@code millis}; {@code what} took longer: a {@link TopologyException}. */
    static Topology within(String what, long millis, Callable<Topology> read) {
        FutureTask<Topology> task = new FutureTask<>(read);
        new AgentThread("qv-read", task).start();
        try {
            return task.get(millis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new TopologyException(what + " took more than " + millis / 1000.0 + " s (a file that blocks or never ends?)");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error err) throw err;
            throw new TopologyException(what + ": " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TopologyException(what + ": interrupted");
        }
    }

    /** An hwloc v2 XML file, or a synthetic spec such as {@code package:2 core:4 pu:2}. */
    public static Topology input(String fileOrSpec) {
        Path p = Path.of(fileOrSpec.strip().isEmpty() ? "." : fileOrSpec.strip());
        if (!fileOrSpec.contains(":") || Files.exists(p)) {
            if (!Files.isRegularFile(p)) {
                throw new TopologyException(fileOrSpec + ": no such file (and not a synthetic spec such as 'package:2 core:4 pu:2')");
            }
            try {
                return HwlocXml.parse(new ByteArrayInputStream(UserFiles.read(p, MAX_XML_BYTES)), p.toString());
            } catch (IOException e) {
                throw new TopologyException(e.getMessage());
            }
        }
        return SyntheticSpec.parse(fileOrSpec);
    }
}
