package io.qv4j.agent.launch;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;

/**
 * What the jar's manifest names for {@code -javaagent}, dynamic attach and {@code java -jar}. The
 * agent itself and everything it bundles (ByteBuddy, OSHI, OpenHFT, JNA, …) are stored in the jar
 * under {@code inst/} as {@code .classdata}, invisible to the application's class loader, and run
 * in their own {@link AgentClassLoader}; this class hands over to them. Only the API
 * ({@code io.qv4j.api} and the packages it uses) and this package are ordinary classes in the jar.
 */
public final class AgentLauncher {

    private static ClassLoader loader;

    private AgentLauncher() {
    }

    /** Never throws: an exception escaping premain kills the JVM. */
    public static void premain(String args, Instrumentation inst) {
        try {
            invoke("io.qv4j.agent.QvAgent", "premain", new Class<?>[] {String.class, Instrumentation.class}, args, inst);
        } catch (Throwable t) {
            System.err.println("qv: agent disabled: " + t);
        }
    }

    /** A failure here (strict=true) reaches the tool that attached the agent. */
    public static void agentmain(String args, Instrumentation inst) throws Throwable {
        invoke("io.qv4j.agent.QvAgent", "agentmain", new Class<?>[] {String.class, Instrumentation.class}, args, inst);
    }

    public static void main(String[] args) throws Throwable {
        invoke("io.qv4j.agent.cli.Main", "main", new Class<?>[] {String[].class}, (Object) args);
    }

    private static void invoke(String className, String method, Class<?>[] types, Object... args) throws Throwable {
        try {
            Class.forName(className, true, loader()).getMethod(method, types).invoke(null, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /**
     * The agent's class loader: one per JVM, shared by the agent and {@link AgentPlatform}. Where
     * the classes are not isolated (this class loaded from a directory, as in the module's own
     * tests), the loader of this class.
     */
    static synchronized ClassLoader loader() throws Exception {
        if (loader == null) {
            Path jar = codeSource();
            ClassLoader own = AgentLauncher.class.getClassLoader();
            AgentClassLoader isolated = jar != null && Files.isRegularFile(jar) ? AgentClassLoader.open(jar, own) : null;
            loader = isolated != null ? isolated : own;
        }
        return loader;
    }

    private static Path codeSource() throws URISyntaxException {
        CodeSource cs = AgentLauncher.class.getProtectionDomain().getCodeSource();
        return cs == null || cs.getLocation() == null ? null : Path.of(cs.getLocation().toURI());
    }
}
