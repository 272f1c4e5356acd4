package io.qv4j.agent.launch;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

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

    public static void premain(String args, Instrumentation inst) {
        start("premain", args, inst);
    }

    public static void agentmain(String args, Instrumentation inst) {
        start("agentmain", args, inst);
    }

    public static void main(String[] args) throws Throwable {
        try {
            Class.forName("io.qv4j.agent.cli.Main", true, loader()).getMethod("main", String[].class).invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** Never throws: an exception escaping premain kills the JVM. */
    private static void start(String method, String args, Instrumentation inst) {
        try {
            Class.forName("io.qv4j.agent.QvAgent", true, loader())
                    .getMethod(method, String.class, Instrumentation.class).invoke(null, args, inst);
        } catch (Throwable t) {
            System.err.println("qv: agent disabled: " + (t instanceof InvocationTargetException ? t.getCause() : t));
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
        java.security.CodeSource cs = AgentLauncher.class.getProtectionDomain().getCodeSource();
        return cs == null || cs.getLocation() == null ? null : Path.of(cs.getLocation().toURI());
    }
}
