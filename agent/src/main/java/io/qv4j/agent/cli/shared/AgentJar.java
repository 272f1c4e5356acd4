package io.qv4j.agent.cli.shared;

import io.qv4j.agent.config.OptionException;
import io.qv4j.agent.config.OptionsParser;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * This jar as the agent other JVMs get ({@code attach} loads it, {@code compare} starts commands
 * with it): where it is, and whether it takes an option string.
 */
public final class AgentJar {

    private AgentJar() {
    }

    /** This jar, the agent to load: {@code java -jar} makes it the class path; {@code command} names the command in errors. */
    public static String path(String command) {
        String cp = System.getProperty("java.class.path", "");
        if (cp.endsWith(".jar") && !cp.contains(java.io.File.pathSeparator) && Files.isRegularFile(Path.of(cp))) return Path.of(cp).toAbsolutePath().toString();
        try {
            Path p = Path.of(AgentJar.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (!Files.isRegularFile(p)) throw new UsageException(command + ": run from the agent jar (java -jar qv-agent.jar " + command + " ...), not from " + p);
            return p.toString();
        } catch (java.net.URISyntaxException | SecurityException | NullPointerException e) {
            throw new UsageException(command + ": cannot tell where the agent jar is (" + e + ")");
        }
    }

    /**
     * What is wrong with an option string, as the agent would parse it (a config file is the
     * target's to read: not checked); null when nothing. {@code attach} checks where the agent is
     * already in the target and will not read it, {@code compare} each arm before any run.
     */
    public static String badOptions(String options) {
        try {
            OptionsParser.parse(options, new java.util.Properties(), Map.of());
            return null;
        } catch (OptionException e) {
            return e.getMessage().startsWith("config=") ? null : e.getMessage();
        }
    }
}
