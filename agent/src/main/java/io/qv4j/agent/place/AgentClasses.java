package io.qv4j.agent.place;

/**
 * The one answer to "is this class the agent's own?", derived from the agent's package like the
 * shaded dependencies' prefix is derived from it: {@code io.qv4j.agent.*} and {@code io.qv4j.shaded.*}.
 * Pools the agent makes are never pinned, and its classes are never instrumented. The qv4j API
 * ({@code io.qv4j.api}, ...) is not the agent: pools made through it belong to the application.
 */
public final class AgentClasses {

    private static final String AGENT;
    private static final String SHADED;

    static {
        String pkg = AgentClasses.class.getPackageName();            // io.qv4j.agent.place
        String agent = pkg.substring(0, pkg.lastIndexOf('.'));        // io.qv4j.agent
        AGENT = agent + ".";
        SHADED = agent.substring(0, agent.lastIndexOf('.')) + ".shaded."; // io.qv4j.shaded.
    }

    private AgentClasses() {
    }

    /** {@code name}: a binary name ({@code a.b.C}) or an internal name ({@code a/b/C}). */
    public static boolean isOurs(String name) {
        return startsWith(name, AGENT) || startsWith(name, SHADED);
    }

    private static boolean startsWith(String name, String dotted) {
        if (name.length() < dotted.length()) return false;
        for (int i = 0; i < dotted.length(); i++) {
            char c = name.charAt(i);
            char d = dotted.charAt(i);
            if (c != d && !(c == '/' && d == '.')) return false;
        }
        return true;
    }
}
