package io.qv4j.agent.it;

import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Boots a real Linux kernel under qemu (TCG: no KVM needed) on a machine of a chosen shape (packages,
 * NUMA nodes, cores, SMT threads) and runs one shell script in it, JVMs with the agent included:
 * the only way to test placement on topologies the build machine does not have, with the kernel's
 * own sysfs, cpusets and sched_setaffinity.
 *
 * <p>The guest shares nothing with the host (the kernel has no 9p, virtio-pci is a module): all it
 * runs comes in the initramfs, two newc cpio archives in one file, which the kernel unpacks one
 * after the other. The base (busybox, a jlinked JDK, the libraries, the agent jar and the test
 * classes; ~100 MB) is built once per test JVM into target/guest; each boot appends its own small
 * archive with /batch.sh and the caller's files.
 */
public final class Guest {

    /** What /init prints around the batch: between them is the batch's output, without the kernel's. */
    private static final String BEGIN = "@@qv-guest-begin@@";
    private static final String END = "@@qv-guest-end rc=";
    /** Part of the base archive's name: change it when the archive's layout changes. */
    private static final String LAYOUT = "1";
    /** Guest memory: 512 MB a node, at most 4 GB in all (TCG backs every page with host memory). */
    private static final int NODE_MB = 512;
    private static final int TOTAL_MB = 4096;
    /** The JDK modules the guest's java gets, where the JDK has them: the agent's and its commands'. */
    private static final List<String> MODULES = List.of("java.base", "java.management", "java.instrument", "jdk.attach",
            "java.logging", "jdk.jfr", "jdk.unsupported", "java.xml", "jdk.management", "jdk.management.agent", "jdk.jcmd");
    /** Open MPI's and PMIx's plugins, configuration and help texts (Debian's openmpi-bin, libopenmpi3, libpmix2). */
    private static final List<String> MPI_TREES = List.of("/usr/lib/x86_64-linux-gnu/openmpi", "/usr/lib/x86_64-linux-gnu/pmix2",
            "/etc/openmpi", "/usr/share/openmpi", "/usr/share/pmix");
    private static final Pattern TCG_NOISE = Pattern.compile("(?m)^qemu-system-x86_64: warning: TCG doesn't support requested feature.*\n");
    private static final Path BUSYBOX = Path.of("/usr/bin/busybox");
    private static final Path LSTOPO = Path.of("/usr/bin/lstopo-no-graphics");
    private static final Path ORTED = Path.of("/usr/bin/orted");

    /**
     * A machine: {@code packages} sockets, each of {@code nodesPerPackage} NUMA nodes of
     * {@code coresPerNode} cores of {@code threadsPerCore} SMT threads; {@code append} goes to the
     * kernel's command line (e.g. "nosmt"), "" for nothing.
     */
    public record Shape(int packages, int nodesPerPackage, int coresPerNode, int threadsPerCore, String append) {

        public Shape {
            if (packages < 1 || nodesPerPackage < 1 || coresPerNode < 1 || threadsPerCore < 1) {
                throw new IllegalArgumentException("every count of a shape is at least 1");
            }
            append = append == null ? "" : append;
        }

        public static Shape of(int packages, int nodesPerPackage, int coresPerNode, int threadsPerCore) {
            return new Shape(packages, nodesPerPackage, coresPerNode, threadsPerCore, "");
        }

        public Shape withAppend(String kernelArgs) {
            return new Shape(packages, nodesPerPackage, coresPerNode, threadsPerCore, kernelArgs);
        }

        public int nodes() {
            return packages * nodesPerPackage;
        }

        /** The PUs (logical CPUs) the guest has. */
        public int pus() {
            return nodes() * coresPerNode * threadsPerCore;
        }

        /**
         * qemu's options for this shape. qemu numbers CPUs threads innermost, then cores, then
         * sockets, and a node must be a contiguous range: so the nodes of a package are its cores in
         * runs of coresPerNode, and node k holds CPUs k*C*T to (k+1)*C*T-1.
         */
        List<String> qemuOptions() {
            int perNode = coresPerNode * threadsPerCore;
            int nodeMb = Math.min(NODE_MB, TOTAL_MB / nodes());
            List<String> out = new ArrayList<>(List.of("-m", nodes() * nodeMb + "M", "-smp",
                    pus() + ",sockets=" + packages + ",dies=1,cores=" + nodesPerPackage * coresPerNode + ",threads=" + threadsPerCore));
            for (int k = 0; k < nodes(); k++) {
                out.addAll(List.of("-object", "memory-backend-ram,id=m" + k + ",size=" + nodeMb + "M",
                        "-numa", "node,nodeid=" + k + ",cpus=" + k * perNode + "-" + ((k + 1) * perNode - 1) + ",memdev=m" + k));
            }
            return out;
        }

        @Override
        public String toString() {
            return packages + "x" + nodesPerPackage + "x" + coresPerNode + "x" + threadsPerCore + (append.isEmpty() ? "" : " " + append);
        }
    }

    private static Optional<String> unavailable;
    private static Path kernel;

    private Guest() {
    }

    /**
     * Boots a guest of this shape, runs {@code batchScript} there with sh (stdout and stderr to the
     * console), and returns what it printed ("\n" line ends). {@code files}: more files for the
     * guest, path there to text (e.g. "/qv/rules.properties"); not under /tmp, /proc, /sys or /dev,
     * which /init mounts over. The batch's exit status is not reported: print what the test needs.
     *
     * @throws IllegalStateException where no guest can boot here ({@link #unavailable()}), it did
     *         not power off within {@code timeout}, or it died before the batch ended
     */
    public static String run(Shape shape, Map<String, String> files, String batchScript, Duration timeout)
            throws IOException, InterruptedException {
        unavailable().ifPresent(why -> {
            throw new IllegalStateException(why);
        });
        Path initrd = bootArchive(baseArchive(), files, batchScript);
        try {
            return between(boot(shape, initrd, timeout), shape);
        } finally {
            Files.deleteIfExists(initrd);
        }
    }

    /** Why no guest can boot here, in one line naming what to install; empty where one can. */
    public static synchronized Optional<String> unavailable() {
        if (unavailable == null) unavailable = Optional.ofNullable(check());
        return unavailable;
    }

    private static String check() {
        if (!"Linux".equals(System.getProperty("os.name")) || !"amd64".equals(System.getProperty("os.arch"))) {
            return "guest boots need Linux on x86-64, not " + System.getProperty("os.name") + " " + System.getProperty("os.arch");
        }
        if (onPath("qemu-system-x86_64") == null) return "qemu-system-x86_64 not on PATH (Debian package qemu-system-x86)";
        if (!Files.isExecutable(BUSYBOX)) return BUSYBOX + " not found (Debian package busybox-static)";
        if (onPath("ldd") == null) return "ldd not on PATH (Debian package libc-bin)";
        if (!Files.isExecutable(jdk().resolve("bin/jlink"))) return "no jlink in " + jdk() + " (a full JDK, e.g. Debian openjdk-17-jdk-headless)";
        try {
            kernel = findKernel();
        } catch (IllegalStateException | IOException e) {
            return e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while looking for a guest kernel";
        }
        return null;
    }

    // ---- the kernel ----

    /** -Dqv.guest.kernel, else $QV_GUEST_KERNEL, else what scripts/guest-kernel prints (it fetches one). */
    private static Path findKernel() throws IOException, InterruptedException {
        String given = System.getProperty("qv.guest.kernel", System.getenv("QV_GUEST_KERNEL"));
        if (given != null && !given.isBlank()) {
            Path k = Path.of(given);
            if (!Files.isRegularFile(k)) throw new IllegalStateException("guest kernel " + k + " (qv.guest.kernel / QV_GUEST_KERNEL) not found");
            return k;
        }
        Path script = repoRoot().resolve("scripts/guest-kernel");
        Process p = new ProcessBuilder(script.toString()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException(script + " took over 5 minutes");
        }
        String path = new String(out, StandardCharsets.UTF_8).strip();
        if (p.exitValue() != 0 || path.isEmpty()) {
            String last = err.isEmpty() ? "exit " + p.exitValue() : err.substring(err.lastIndexOf('\n') + 1);
            throw new IllegalStateException("no guest kernel: " + last);
        }
        return Path.of(path);
    }

    /** The checkout: the tests run in agent/, scripts/ is beside it. */
    private static Path repoRoot() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("scripts/guest-kernel"))) return d;
        }
        throw new IllegalStateException("scripts/guest-kernel not found above " + Path.of("").toAbsolutePath() + "; set QV_GUEST_KERNEL to a vmlinuz");
    }

    // ---- the archives ----

    /** agent/target/guest, beside the agent jar. */
    private static Path guestDir() throws IOException {
        return Files.createDirectories(Jvm.agentJar().getParent().resolve("guest"));
    }

    /** Where the test classes are (target/test-classes): this class is one of them. */
    private static Path testClasses() {
        try {
            return Path.of(Guest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The JDK to jlink the guest's from: -Dqv.guest.jdk, else Debian's 17 (the agent's oldest), else this one. */
    private static Path jdk() {
        String given = System.getProperty("qv.guest.jdk");
        if (given != null) return Path.of(given);
        Path debian17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64");
        return Files.isExecutable(debian17.resolve("bin/jlink")) ? debian17 : Path.of(System.getProperty("java.home"));
    }

    /**
     * The base archive, built when missing or older than the agent jar or a test class. Synchronized:
     * test classes of one JVM share it.
     */
    private static synchronized Path baseArchive() throws IOException, InterruptedException {
        Path dir = guestDir();
        removeLeftovers(dir);
        Path jar = Jvm.agentJar();
        Path classes = testClasses();
        Path archive = dir.resolve("base-" + hash(LAYOUT, jdk().toString(), jar.toString(), classes.toString()) + ".cpio");
        if (Files.isRegularFile(archive) && Files.getLastModifiedTime(archive).toMillis() >= newest(jar, classes)) return archive;
        Path jdk = jlinked(dir);
        Path tmp = Files.createTempFile(dir, "base-", ".tmp");
        try (Cpio cpio = new Cpio(Files.newOutputStream(tmp))) {
            writeBase(cpio, jdk, jar, classes);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        return Files.move(tmp, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Boot archives (100 MB each) and half-written bases of test JVMs killed over an hour ago. */
    private static void removeLeftovers(Path dir) throws IOException {
        long hourAgo = System.currentTimeMillis() - TimeUnit.HOURS.toMillis(1);
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.toList()) {
                String name = p.getFileName().toString();
                boolean leftover = name.startsWith("boot-") || name.startsWith("base-") && name.endsWith(".tmp");
                if (leftover && Files.getLastModifiedTime(p).toMillis() < hourAgo) Files.deleteIfExists(p);
            }
        }
    }

    private static void writeBase(Cpio cpio, Path jdk, Path jar, Path classes) throws IOException, InterruptedException {
        // the host's merged-/usr links (/lib -> usr/lib, ...): the libraries' paths, as ldd prints them, then resolve
        for (String top : List.of("bin", "sbin", "lib", "lib32", "lib64", "libx32")) {
            Path p = Path.of("/" + top);
            if (Files.isSymbolicLink(p)) cpio.symlink("/" + top, Files.readSymbolicLink(p).toString());
        }
        for (String d : List.of("/proc", "/sys", "/dev", "/tmp", "/root", "/run", "/etc", "/bin", "/sbin", "/usr/bin", "/usr/sbin")) {
            cpio.dir(d);
        }
        // the kernel opens /dev/console for /init's stdio before anything is mounted
        cpio.device("/dev/console", 5, 1);
        cpio.text("/init", INIT, 0755);
        cpio.text("/etc/passwd", "root:x:0:0:root:/root:/bin/sh\n", 0644);
        cpio.text("/etc/group", "root:x:0:\n", 0644);
        cpio.text("/etc/hosts", "127.0.0.1 localhost guest\n", 0644);

        cpio.tree("/jdk", jdk);
        cpio.file("/qv/qv-agent.jar", jar, 0644);
        cpio.tree("/qv/test-classes", classes);

        // programs, then the libraries they and their plugins load
        List<Path> elves = new ArrayList<>(List.of(BUSYBOX, jdk.resolve("bin/java"), jdk.resolve("lib/server/libjvm.so")));
        try (Stream<Path> s = Files.list(jdk.resolve("lib"))) {
            s.filter(p -> p.toString().endsWith(".so")).forEach(elves::add);
        }
        if (Files.isExecutable(LSTOPO)) {
            cpio.host(LSTOPO);
            elves.add(LSTOPO);
        }
        if (Files.isExecutable(ORTED)) elves.addAll(openMpi(cpio));
        for (Path lib : libraries(elves, jdk)) cpio.host(lib);
        cpio.host(Path.of("/lib64/ld-linux-x86-64.so.2"));

        // busybox last: an applet never hides a real program of the same name added above
        cpio.file(BUSYBOX.toString(), BUSYBOX, 0755);
        for (String applet : run(List.of(BUSYBOX.toString(), "--list-full")).split("\n")) {
            if (!applet.isBlank()) cpio.symlink(cpio.canonical("/" + applet.strip()), BUSYBOX.toString());
        }
    }

    /** Open MPI's launcher (mpirun, orted), its plugin trees; returns the programs and plugins for ldd. */
    private static List<Path> openMpi(Cpio cpio) throws IOException {
        List<Path> elves = new ArrayList<>();
        for (String tool : List.of("mpirun", "mpiexec", "orterun", "orted")) {
            Path p = Path.of("/usr/bin", tool);
            if (Files.exists(p)) {
                cpio.host(p);
                elves.add(p.toRealPath());
            }
        }
        for (String tree : MPI_TREES) {
            Path root = Path.of(tree);
            if (!Files.isDirectory(root)) continue;
            try (Stream<Path> s = Files.walk(root)) {
                for (Path p : s.filter(p -> !Files.isDirectory(p)).toList()) {
                    cpio.host(p);
                    if (p.getFileName().toString().endsWith(".so") && Files.isRegularFile(p)) elves.add(p);
                }
            }
        }
        return elves;
    }

    /** The shared libraries ldd finds for these programs, outside the jlinked JDK (which brings its own). */
    private static Set<Path> libraries(List<Path> elves, Path jdk) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("ldd"));
        elves.forEach(p -> cmd.add(p.toString()));
        Set<Path> out = new LinkedHashSet<>();
        Matcher m = Pattern.compile("(/\\S+) \\(0x").matcher(run(cmd));
        while (m.find()) {
            Path lib = Path.of(m.group(1));
            if (!lib.startsWith(jdk)) out.add(lib);
        }
        return out;
    }

    /** A small JDK for the guest (~70 MB with its CDS archive), made once per checkout. */
    private static Path jlinked(Path dir) throws IOException, InterruptedException {
        Path jdk = jdk();
        Path out = dir.resolve("jdk-" + hash(jdk.toString(), String.join(",", MODULES)));
        if (Files.isExecutable(out.resolve("bin/java"))) return out;
        Set<String> present = new HashSet<>();
        for (String line : run(List.of(jdk.resolve("bin/java").toString(), "--list-modules")).split("\n")) {
            present.add(line.strip().replaceFirst("@.*", ""));
        }
        List<String> modules = MODULES.stream().filter(present::contains).toList();
        Path tmp = dir.resolve(out.getFileName() + ".tmp");
        deleteTree(tmp);
        // the CDS archive saves each of the guest's JVMs ~0.5 s of start-up under TCG
        List<String> cmd = List.of(jdk.resolve("bin/jlink").toString(), "--add-modules", String.join(",", modules), "--strip-debug",
                "--no-header-files", "--no-man-pages", "--generate-cds-archive", "--output", tmp.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) throw new IllegalStateException("jlink failed for the guest's JDK: " + log.strip().replace('\n', ' '));
        // only for heaps over 32 GB: 11 MB of guest memory for nothing
        Files.deleteIfExists(tmp.resolve("lib/server/classes_nocoops.jsa"));
        Files.move(tmp, out, StandardCopyOption.ATOMIC_MOVE);
        return out;
    }

    /** The base, then this boot's archive (/batch.sh and the files) after it, in a file of its own. */
    private static Path bootArchive(Path base, Map<String, String> files, String batchScript) throws IOException {
        Path initrd = Files.createTempFile(base.getParent(), "boot-", ".cpio");
        try {
            Files.copy(base, initrd, StandardCopyOption.REPLACE_EXISTING);
            try (Cpio cpio = new Cpio(Files.newOutputStream(initrd, StandardOpenOption.APPEND))) {
                cpio.text("/batch.sh", batchScript, 0755);
                for (Map.Entry<String, String> f : files.entrySet()) {
                    String path = f.getKey();
                    if (!path.startsWith("/") || Stream.of("/tmp/", "/proc/", "/sys/", "/dev/").anyMatch(path::startsWith)) {
                        throw new IllegalArgumentException("guest file " + path + ": an absolute path outside /tmp, /proc, /sys and /dev");
                    }
                    cpio.text(path, f.getValue(), 0644);
                }
            }
            return initrd;
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(initrd);
            throw e;
        }
    }

    // ---- the boot ----

    /**
     * A guest that has not begun its batch this long after qemu started hung in its boot (seen once
     * under TCG on a loaded host: the console stopped in the kernel's first second) and is booted
     * once more. Booting to /init takes a few seconds here.
     */
    static final Duration BOOT_STALL = Duration.ofMinutes(2);

    /** Boots, waits for the guest to power off, returns the console (stdout and qemu's stderr), "\r" removed. */
    private static String boot(Shape shape, Path initrd, Duration timeout) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("qemu-system-x86_64", "-machine", "q35", "-accel", "tcg,thread=multi",
                // Skylake-Server: -cpu max shows the guest no SMT siblings
                "-cpu", "Skylake-Server"));
        cmd.addAll(shape.qemuOptions());
        cmd.addAll(List.of("-kernel", kernel.toString(), "-initrd", initrd.toString(),
                // not quiet: a boot that hangs shows its last step in the console's tail; /init hushes the kernel before the batch
                "-append", ("console=ttyS0 panic=-1 " + shape.append()).strip(),
                "-display", "none", "-serial", "stdio", "-monitor", "none", "-nic", "none", "-no-reboot"));
        for (int attempt = 1; ; attempt++) {
            Process qemu = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            ByteArrayOutputStream console = new ByteArrayOutputStream();
            Thread reader = new Thread(() -> copy(qemu.getInputStream(), console), "guest-console-" + shape);
            reader.setDaemon(true);
            reader.start();
            long t0 = System.nanoTime();
            boolean begun = false;
            while (qemu.isAlive() && System.nanoTime() - t0 < timeout.toNanos()) {
                if (!begun) {
                    synchronized (console) {
                        begun = console.toString(StandardCharsets.UTF_8).contains(BEGIN);
                    }
                    if (!begun && System.nanoTime() - t0 > BOOT_STALL.toNanos()) break;
                }
                qemu.waitFor(begun ? timeout.toNanos() - (System.nanoTime() - t0) : TimeUnit.MILLISECONDS.toNanos(500), TimeUnit.NANOSECONDS);
            }
            if (qemu.isAlive()) {
                qemu.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                reader.join(1000);
                if (!begun && attempt == 1) {
                    System.err.println("guest " + shape + " had not begun its batch after " + BOOT_STALL + ": booting it again; its console ended:\n" + tail(text(console)));
                    continue;
                }
                throw new IllegalStateException("guest " + shape + " still running after " + (begun ? timeout : BOOT_STALL + " without beginning its batch")
                        + " (attempt " + attempt + "); its console ended:\n" + tail(text(console)));
            }
            reader.join(10_000);
            return text(console);
        }
    }

    /** The batch's output: what /init printed between its markers. */
    private static String between(String console, Shape shape) {
        int begin = console.indexOf(BEGIN + "\n");
        int end = console.lastIndexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalStateException("guest " + shape + " ended before its batch did; its console ended:\n" + tail(console));
        }
        return console.substring(begin + BEGIN.length() + 1, end);
    }

    private static void copy(InputStream in, ByteArrayOutputStream to) {
        byte[] buf = new byte[8192];
        try (in) {
            for (int n; (n = in.read(buf)) > 0; ) {
                synchronized (to) {
                    to.write(buf, 0, n);
                }
            }
        } catch (IOException e) {
            // qemu killed: what came is kept
        }
    }

    /** The console as text: "\r" removed, and qemu's warnings of Skylake features TCG lacks (a dozen per CPU). */
    private static String text(ByteArrayOutputStream console) {
        synchronized (console) {
            return TCG_NOISE.matcher(console.toString(StandardCharsets.UTF_8).replace("\r", "")).replaceAll("");
        }
    }

    private static String tail(String text) {
        String[] lines = text.split("\n");
        return String.join("\n", List.of(lines).subList(Math.max(0, lines.length - 40), lines.length));
    }

    // ---- small helpers ----

    private static String run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }

    private static Path onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(p)) return p;
        }
        return null;
    }

    /** The newest modification time of these files and the files under these directories. */
    private static long newest(Path... roots) throws IOException {
        long newest = 0;
        for (Path root : roots) {
            try (Stream<Path> s = Files.walk(root)) {
                for (Path p : s.toList()) newest = Math.max(newest, Files.getLastModifiedTime(p).toMillis());
            }
        }
        return newest;
    }

    private static String hash(String... parts) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String part : parts) sha.update((part + "\0").getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha.digest()).substring(0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) return;
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted((a, b) -> b.compareTo(a)).toList()) Files.delete(p);
        }
    }

    /** PID 1: mounts what the tests read, runs the batch between the markers, powers off. */
    private static final String INIT = """
            #!/bin/sh
            mount -t proc proc /proc
            mount -t sysfs sysfs /sys
            mount -t devtmpfs devtmpfs /dev
            mkdir -p /dev/shm /dev/pts
            mount -t tmpfs tmpfs /dev/shm
            mount -t tmpfs tmpfs /tmp
            mount -t cgroup2 cgroup2 /sys/fs/cgroup
            # from here the kernel's messages stay in dmesg: the console carries the batch's output alone
            dmesg -n 1
            export PATH=/jdk/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TMPDIR=/tmp
            # Open MPI: one node, no ssh; mpirun starts the ranks itself
            export OMPI_MCA_plm=isolated
            hostname guest
            ifconfig lo 127.0.0.1 up
            cd /root
            echo %s
            sh /batch.sh </dev/null 2>&1
            echo "%s$?@@"
            poweroff -f
            """.formatted(BEGIN, END);

    /**
     * Writes a newc ("070701") cpio archive, the initramfs format: a 110-byte header of hex fields,
     * the name, the data, each padded to 4 bytes; "TRAILER!!!" ends it. Every name once (the first
     * wins), parent directories made as needed.
     */
    private static final class Cpio implements Closeable {
        private static final int TYPE = 0170000;
        private static final int DIR = 0040000;
        private static final int FILE = 0100000;
        private static final int LINK = 0120000;
        private static final int CHAR = 0020000;

        private final OutputStream out;
        private final Set<String> written = new HashSet<>();
        private long offset;
        private int inode = 1;

        Cpio(OutputStream out) {
            this.out = new BufferedOutputStream(out, 1 << 16);
        }

        void dir(String path) throws IOException {
            if (path.equals("/") || written.contains(path)) return;
            parents(path);
            entry(path, DIR | 0755, 0, 0, null, 0);
        }

        void text(String path, String content, int perm) throws IOException {
            byte[] data = content.getBytes(StandardCharsets.UTF_8);
            if (claim(path)) entry(path, FILE | perm, 0, 0, new ByteArrayInputStream(data), data.length);
        }

        void file(String path, Path host, int perm) throws IOException {
            if (!claim(path)) return;
            try (InputStream in = Files.newInputStream(host)) {
                entry(path, FILE | perm, 0, 0, in, Files.size(host));
            }
        }

        void symlink(String path, String target) throws IOException {
            byte[] data = target.getBytes(StandardCharsets.UTF_8);
            if (claim(path)) entry(path, LINK | 0777, 0, 0, new ByteArrayInputStream(data), data.length);
        }

        void device(String path, int major, int minor) throws IOException {
            if (claim(path)) entry(path, CHAR | 0600, major, minor, null, 0);
        }

        /** A host directory's contents under {@code path}: files, links and directories as they are. */
        void tree(String path, Path root) throws IOException {
            dir(path);
            try (Stream<Path> s = Files.walk(root)) {
                for (Path p : s.skip(1).toList()) {
                    String to = path + "/" + root.relativize(p).toString().replace(File.separatorChar, '/');
                    if (Files.isSymbolicLink(p)) symlink(to, Files.readSymbolicLink(p).toString());
                    else if (Files.isDirectory(p)) dir(to);
                    else file(to, p, Files.isExecutable(p) ? 0755 : 0644);
                }
            }
        }

        /**
         * A host file at the same place in the guest (its directory as the host resolves it, under the
         * merged-/usr links); a symbolic link as a link, and what it points to as well.
         */
        void host(Path p) throws IOException {
            String at = canonical(p.toString());
            if (written.contains(at)) return;
            if (Files.isSymbolicLink(p)) {
                Path target = Files.readSymbolicLink(p);
                symlink(at, target.toString());
                host(Path.of(at).getParent().resolve(target).normalize());
            } else {
                file(at, p, Files.isExecutable(p) ? 0755 : 0644);
            }
        }

        /** The path with its directory resolved as on the host (/lib/x/libc.so.6 -> /usr/lib/x/libc.so.6). */
        String canonical(String path) throws IOException {
            Path p = Path.of(path);
            Path dir = p.getParent();
            return Files.isDirectory(dir) ? dir.toRealPath().resolve(p.getFileName()).toString() : path;
        }

        /** False where the name is taken; else its parents are made and it is the caller's. */
        private boolean claim(String path) throws IOException {
            if (written.contains(path)) return false;
            parents(path);
            return true;
        }

        private void parents(String path) throws IOException {
            int slash = path.lastIndexOf('/');
            if (slash > 0) dir(path.substring(0, slash));
        }

        private void entry(String path, int mode, int rdevMajor, int rdevMinor, InputStream data, long size) throws IOException {
            written.add(path);
            String name = path.substring(1); // archive names are relative to the root
            header(name, mode, size, rdevMajor, rdevMinor, (mode & TYPE) == DIR ? 2 : 1);
            if (data != null) {
                long copied = data.transferTo(out);
                if (copied != size) throw new IOException(path + ": " + copied + " bytes, expected " + size);
                offset += copied;
                pad();
            }
        }

        private void header(String name, int mode, long size, int rdevMajor, int rdevMinor, int links) throws IOException {
            if (size > 0xffffffffL) throw new IOException(name + ": over 4 GB, more than newc can say");
            byte[] nameBytes = (name + "\0").getBytes(StandardCharsets.UTF_8);
            String h = String.format("070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
                    inode++, mode, 0, 0, links, 0, size, 0, 0, rdevMajor, rdevMinor, nameBytes.length, 0);
            out.write(h.getBytes(StandardCharsets.US_ASCII));
            out.write(nameBytes);
            offset += h.length() + nameBytes.length;
            pad();
        }

        private void pad() throws IOException {
            while (offset % 4 != 0) {
                out.write(0);
                offset++;
            }
        }

        @Override
        public void close() throws IOException {
            try (out) {
                header("TRAILER!!!", 0, 0, 0, 0, 1);
            }
        }
    }
}
