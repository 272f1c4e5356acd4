package io.qv4j.agent.launch;

import java.lang.instrument.Instrumentation;
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

    /**
     * The agent's entry points, as its own class loader defines them ({@code io.qv4j.agent.Entry}):
     * the class registers itself when initialized, so the hand-over needs no reflective call (on
     * JDK 18 and later each first one spins method handles, milliseconds of a cold start).
     */
    public interface Entry {
        void premain(String args, Instrumentation inst);

        void agentmain(String args, Instrumentation inst);

        void main(String[] args) throws Exception;
    }

    private static final String ENTRY = "io.qv4j.agent.Entry";
    private static ClassLoader loader;
    private static volatile Entry entry;

    private AgentLauncher() {
    }

    /** Never throws: an exception escaping premain kills the JVM. */
    public static void premain(String args, Instrumentation inst) {
        try {
            entry().premain(args, inst);
        } catch (Throwable t) {
            System.err.println("qv: agent disabled: " + t);
        }
    }

    /** A failure here (strict=true) reaches the tool that attached the agent. */
    public static void agentmain(String args, Instrumentation inst) throws Exception {
        entry().agentmain(args, inst);
    }

    public static void main(String[] args) throws Exception {
        entry().main(args);
    }

    /** Called by {@code io.qv4j.agent.Entry}'s static initializer; ignored from anywhere but the agent's own loader. */
    public static void register(Entry e) {
        try {
            if (e != null && e.getClass().getClassLoader() == loader()) entry = e;
        } catch (Exception cannot) {
            // no loader: nothing registers
        }
    }

    private static Entry entry() throws Exception {
        if (entry == null) Class.forName(ENTRY, true, loader());
        if (entry == null) throw new IllegalStateException(ENTRY + " did not register");
        return entry;
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
