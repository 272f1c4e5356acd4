package io.qv4j.agent.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Forks JVMs (JDK 17 and, where installed, JDK 25) running the built agent jar. */
public final class Jvm {

    /** What a forked process did. */
    public record Result(int exitCode, String stdout, String stderr) {
    }

    private Jvm() {
    }

    /** The shaded jar under test, built by {@code mvn package}. */
    public static Path agentJar() {
        Path jar = Path.of(System.getProperty("qv.agentJar", "target/qv-agent.jar"));
        if (!Files.isRegularFile(jar)) throw new IllegalStateException("agent jar not built: " + jar.toAbsolutePath());
        return jar;
    }

    /** The {@code java} executables to test with: the running JDK, plus any JDK 25 under /usr/lib/jvm. */
    public static List<Path> javas() throws IOException {
        List<Path> out = new ArrayList<>();
        out.add(Path.of(System.getProperty("java.home"), "bin", "java"));
        Path jvms = Path.of("/usr/lib/jvm");
        if (Files.isDirectory(jvms)) {
            try (Stream<Path> s = Files.list(jvms)) {
                s.filter(p -> p.getFileName().toString().contains("25"))
                        .map(p -> p.resolve("bin/java")).filter(Files::isExecutable).sorted().limit(1).forEach(out::add);
            }
        }
        return out;
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
}
