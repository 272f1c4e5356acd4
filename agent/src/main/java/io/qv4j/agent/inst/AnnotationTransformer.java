package io.qv4j.agent.inst;

import io.qv4j.agent.boot.QvHooks;
import io.qv4j.agent.log.Log;
import io.qv4j.agent.place.AgentClasses;

import java.lang.instrument.ClassFileTransformer;
import java.nio.charset.StandardCharsets;
import java.security.ProtectionDomain;
import java.util.List;

/**
 * Instruments application classes that use {@code @io.qv4j.api.Placement} or {@code @io.qv4j.api.Bind}.
 * Cheap for every other class: one byte search for the two descriptors in the class bytes, no
 * parsing, no ASM loaded. In a class that has them {@link AnnotationRewriter} inserts:
 * <ul>
 * <li>annotated method (or any method of an annotated class): {@code placementEnter(id)} at entry,
 * {@code placementExit(id)} before each return and in a catch-all handler that rethrows
 * (constructors: before each return only; an exception leaving a constructor is cleaned up when
 * an enclosing annotated call ends);</li>
 * <li>{@code @Bind} method: {@code bindEnter(id)}/{@code bindExit(id)} likewise;</li>
 * <li>a PUTFIELD/PUTSTATIC of an annotated field of this class: {@code DUP; id; fieldSet(Object, int)}.</li>
 * </ul>
 * The calls go to the boot hook class in {@code java.util.concurrent}, visible to every class loader.
 */
public final class AnnotationTransformer implements ClassFileTransformer {

    static final String PLACEMENT = "Lio/qv4j/api/Placement;";
    static final String BIND = "Lio/qv4j/api/Bind;";
    private static final byte[] MARK = "Lio/qv4j/api/".getBytes(StandardCharsets.US_ASCII);
    /** What may follow {@link #MARK} in the descriptor of one of the two annotations. */
    private static final byte[][] NAMES = {"Placement;".getBytes(StandardCharsets.US_ASCII), "Bind;".getBytes(StandardCharsets.US_ASCII)};
    /** The JDK's own packages: never application code. The agent's are {@link AgentClasses#isOurs}. */
    private static final String[] JDK = {"java/", "javax/", "jdk/", "sun/", "com/sun/"};

    private static final List<HookMethod> HOOKS = List.of(
            new HookMethod(QvHooks.PLACEMENT_ENTER_HOOK, QvHooks.ID_HOOK),
            new HookMethod(QvHooks.PLACEMENT_EXIT_HOOK, QvHooks.ID_HOOK),
            new HookMethod(QvHooks.BIND_ENTER_HOOK, QvHooks.ID_HOOK),
            new HookMethod(QvHooks.BIND_EXIT_HOOK, QvHooks.ID_HOOK),
            new HookMethod(QvHooks.FIELD_SET_HOOK, QvHooks.VALUE_ID_HOOK));

    private final String hooks;

    public AnnotationTransformer(String hooksInternalName) {
        this.hooks = hooksInternalName;
    }

    /** The hook methods this transformer can insert calls to (on the hook class it is given). */
    public static List<HookMethod> hooks() {
        return HOOKS;
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain pd, byte[] bytes) {
        if (loader == null || className == null || bytes == null) return null;
        for (String s : JDK) if (className.startsWith(s)) return null;
        if (AgentClasses.isOurs(className)) return null;
        if (!mentions(bytes)) return null;
        try {
            return instrument(bytes);
        } catch (Throwable t) {
            Log.once("anninst:" + className, "cannot instrument the annotations of " + className.replace('/', '.') + " (" + t + "); they are ignored");
            return null;
        }
    }

    /**
     * True when the bytes contain {@code Lio/qv4j/api/Placement;} or {@code Lio/qv4j/api/Bind;}: a
     * class carrying either annotation has its descriptor in the constant pool. A class that only
     * uses the api (a {@code Scope}, a {@code Split}) is not parsed.
     */
    static boolean mentions(byte[] b) {
        byte first = MARK[0];
        int last = b.length - MARK.length;
        for (int i = 0; i <= last; i++) {
            if (b[i] == first && at(b, i, MARK)) {
                int after = i + MARK.length;
                for (byte[] name : NAMES) if (at(b, after, name)) return true;
            }
        }
        return false;
    }

    private static boolean at(byte[] b, int i, byte[] part) {
        if (i + part.length > b.length) return false;
        for (int j = 0; j < part.length; j++) if (b[i + j] != part[j]) return false;
        return true;
    }

    /** The instrumented class, or null when it uses neither annotation. */
    byte[] instrument(byte[] bytes) {
        return new AnnotationRewriter(hooks).instrument(bytes);
    }
}

