package io.qv4j.agent.it;

import io.qv4j.agent.report.JsonReader;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;

/** Forks JVMs (JDK 17 and, where installed, JDK 25) running the built agent jar. */
public final class Jvm {

    /** What a forked process did. */
    public record Result(int exitCode, String stdout, String stderr) {
    }

    private Jvm() {
    }

    /** The shaded jar under test, built by {@code mvn package}. */
    public static Path agentJar() {
        Path jar = Path.of(System.getProperty("it.agentJar", "target/qv-agent.jar"));
        if (!Files.isRegularFile(jar)) throw new IllegalStateException("agent jar not built: " + jar.toAbsolutePath());
        return jar.toAbsolutePath(); // absolute: some tests start the JVM in another directory
    }

    /**
     * The {@code java} executables to test with: the running JDK, then one JDK of another feature
     * release under /usr/lib/jvm, where there is one: JDK 25 beside the default 17, or 17 when the
     * suite itself runs on 25.
     */
    public static List<Path> javas() throws IOException {
        List<Path> out = new ArrayList<>();
        out.add(Path.of(System.getProperty("java.home"), "bin", "java"));
        int running = Runtime.version().feature();
        Path jvms = Path.of("/usr/lib/jvm");
        if (Files.isDirectory(jvms)) {
            Path other = null;
            int otherFeature = -1;
            try (Stream<Path> s = Files.list(jvms)) {
                for (Path home : s.sorted().toList()) {
                    int f = Files.isSymbolicLink(home) || !Files.isExecutable(home.resolve("bin/java")) ? -1 : feature(home);
                    // 25 first, else the first by name
                    if (f > 0 && f != running && (other == null || f == 25 && otherFeature != 25)) {
                        other = home;
                        otherFeature = f;
                    }
                }
            }
            if (other != null) out.add(other.resolve("bin/java"));
        }
        return out;
    }

    /** The newest of {@link #javas()} whose feature release is at least {@code feature}; null where none is. */
    public static Path atLeast(int feature) throws IOException {
        Path best = null;
        int bestFeature = -1;
        for (Path java : javas()) {
            int f = feature(java.getParent().getParent());
            if (f >= feature && f > bestFeature) {
                best = java;
                bestFeature = f;
            }
        }
        return best;
    }

    /** The feature release of the JDK at {@code home} (its {@code release} file), or -1. */
    public static int feature(Path home) {
        try {
            for (String line : Files.readAllLines(home.resolve("release"))) {
                if (!line.startsWith("JAVA_VERSION=\"")) continue;
                String v = line.substring("JAVA_VERSION=\"".length());
                int end = 0;
                while (end < v.length() && Character.isDigit(v.charAt(end))) end++;
                return end == 0 ? -1 : Integer.parseInt(v.substring(0, end));
            }
        } catch (IOException | RuntimeException unreadable) {
            // not a JDK this can use
        }
        return -1;
    }

    /**
     * Runs {@code tasks} at once, each on a thread of its own, and returns their results in order.
     * Not {@code CompletableFuture.supplyAsync}: its pool may have one thread (JDK 25 on 2 PUs),
     * which runs blocking tasks one after the other. Fails the test if they take over 3 minutes.
     */
    public static <T> List<T> atOnce(List<Callable<T>> tasks) throws Exception {
        ExecutorService ex = Executors.newFixedThreadPool(tasks.size());
        try {
            List<T> out = new ArrayList<>();
            for (Future<T> f : ex.invokeAll(tasks, 180, TimeUnit.SECONDS)) {
                if (f.isCancelled()) throw new AssertionError("not done within 180 s");
                out.add(f.get());
            }
            return out;
        } finally {
            ex.shutdownNow();
        }
    }

    /** Runs a command; fails the test if it does not end within the timeout. */
    public static Result run(List<String> command) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command);
        Path err = Files.createTempFile("qv-stderr", ".txt");
        pb.redirectError(err.toFile());
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("timed out: " + command);
        }
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        Files.deleteIfExists(err);
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8), stderr);
    }

    /** {@code java -jar qv-agent.jar ARGS...}, optionally under a prefix such as {@code taskset -c 1}. */
    public static Result cli(Path java, List<String> prefix, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(java.toString());
        cmd.add("-jar");
        cmd.add(agentJar().toString());
        cmd.addAll(List.of(args));
        return run(cmd);
    }

    /**
     * A forked test app: its result, each thread's kernel affinity as the app printed it (lines
     * {@code KIND NAME tid=TID cpus=LIST}), and the agent's JSON report (empty without one).
     */
    public record App(Result result, Map<String, String> cpus, Map<String, Object> report) {
    }

    /**
     * Runs {@code main} on {@code classpath} under {@code prefix} (e.g. {@code taskset -c 1}), with
     * the agent and a report file unless {@code agentArgs} is null; lines whose first word is in
     * {@code kinds} give the affinities.
     */
    public static App app(Path java, List<String> prefix, List<String> jvmArgs, String agentArgs, List<String> classpath,
                          String main, Set<String> kinds, String... args) throws IOException, InterruptedException {
        return app(java, agentJar(), prefix, jvmArgs, agentArgs, classpath, main, kinds, args);
    }

    /** {@link #app(Path, List, List, String, List, String, Set, String...)} with another agent jar. */
    public static App app(Path java, Path agent, List<String> prefix, List<String> jvmArgs, String agentArgs, List<String> classpath,
                          String main, Set<String> kinds, String... args) throws IOException, InterruptedException {
        Path report = Files.createTempFile("qv-report", ".json");
        Files.delete(report);
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(java.toString());
        cmd.addAll(jvmArgs);
        if (agentArgs != null) {
            // node-wide claims in a directory of this run's own, unless the test is about claims:
            // other JVMs on a shared machine (builds, tests) must not change what this one plans
            String claims = agentArgs.contains("claims") ? "" : "claims-dir=" + Files.createTempDirectory("qv-claims") + ",";
            // and fixed pinning unless the test is about busy neighbours: placement tests expect the
            // policy's pieces in order, which a busy build machine or the per-JVM turn would change
            if (!agentArgs.contains("neighbours")) claims += "neighbours=off,";
            cmd.add("-javaagent:" + agent + "=" + agentArgs + (agentArgs.isEmpty() ? "" : ",") + claims + "report=" + report);
        }
        cmd.add("-cp");
        cmd.add(String.join(File.pathSeparator, classpath));
        cmd.add(main);
        cmd.addAll(List.of(args));
        Result r = run(cmd);
        Map<String, String> cpus = new LinkedHashMap<>();
        for (String line : r.stdout().split("\n")) {
            String[] w = line.split(" ");
            if (w.length == 4 && kinds.contains(w[0]) && w[3].startsWith("cpus=")) cpus.put(w[1], w[3].substring(5));
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> rep = Files.exists(report) ? (Map<String, Object>) JsonReader.parse(Files.readString(report)) : Map.of();
        Files.deleteIfExists(report);
        return new App(r, cpus, rep);
    }

    /**
     * A copy of the agent jar, each entry's bytes as {@code change} gives them back (null: left
     * out); a stored entry stays stored.
     */
    public static Path copyOfAgentJar(String name, BiFunction<String, byte[], byte[]> change) throws IOException {
        Path copy = Files.createTempFile(name, ".jar");
        try (JarFile in = new JarFile(Jvm.agentJar().toFile());
             JarOutputStream out = new JarOutputStream(Files.newOutputStream(copy))) {
            for (JarEntry e : Collections.list(in.entries())) {
                byte[] bytes;
                try (InputStream s = in.getInputStream(e)) {
                    bytes = change.apply(e.getName(), s.readAllBytes());
                }
                if (bytes == null) continue;
                JarEntry c = new JarEntry(e.getName());
                if (e.getMethod() == ZipEntry.STORED) {
                    CRC32 crc = new CRC32();
                    crc.update(bytes);
                    c.setMethod(ZipEntry.STORED);
                    c.setSize(bytes.length);
                    c.setCrc(crc.getValue());
                }
                out.putNextEntry(c);
                out.write(bytes);
                out.closeEntry();
            }
        }
        return copy;
    }

    /** A copy of the agent jar without its JNI libraries: the agent then binds through OpenHFT and hooks Thread.run(). */
    public static Path agentJarWithoutJni() throws IOException {
        return copyOfAgentJar("qv-nojni", (name, bytes) -> name.startsWith("inst/io/qv4j/agent/bind/native/") ? null : bytes);
    }
}
