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
 * Cheap for every other class: a walk over its constant pool for the two descriptors, no ASM
 * loaded. In a class that has them {@link AnnotationRewriter} inserts:
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
    private static final byte[] PLACEMENT_BYTES = PLACEMENT.getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BIND_BYTES = BIND.getBytes(StandardCharsets.US_ASCII);
    /**
     * Never application code: the JDK's packages, and the qv4j API's, which the application loader
     * defines (some thirty classes at the first plan, each a constant pool to walk). The agent's
     * own are {@link AgentClasses#isOurs}.
     */
    private static final String[] NEVER = {"java/", "javax/", "jdk/", "sun/", "com/sun/", "io/qv4j/api/", "io/qv4j/split/", "io/qv4j/topology/",
        "io/qv4j/partition/"};

    private static final List<HookMethod> HOOKS = List.of(
            new HookMethod(QvHooks.PLACEMENT_ENTER_HOOK, QvHooks.ID_HOOK),
            new HookMethod(QvHooks.PLACEMENT_EXIT_HOOK, QvHooks.ID_HOOK),
            new HookMethod(QvHooks.BIND_ENTER_HOOK, QvHooks.ID_HOOK),
            new HookMethod(QvHooks.BIND_EXIT_HOOK, QvHooks.ID_HOOK),
            new HookMethod(QvHooks.FIELD_SET_HOOK, QvHooks.VALUE_ID_HOOK));

    /** The agent's isolating loader; null when the agent runs from the class path (tests), whose classes it must see. */
    private static final ClassLoader OWN_LOADER = AnnotationTransformer.class.getClassLoader() == ClassLoader.getSystemClassLoader()
            ? null : AnnotationTransformer.class.getClassLoader();

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
        // The agent's own classes first, by their loader: deciding by name needs AgentClasses, and a
        // transformer that loads a class of the agent while the agent's loader defines one (the
        // class itself, through this very hook) has the loader define it twice
        if (loader == null || loader == OWN_LOADER || className == null || bytes == null) return null;
        for (String s : NEVER) if (className.startsWith(s)) return null;
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
     * True when the constant pool holds {@code Lio/qv4j/api/Placement;} or {@code Lio/qv4j/api/Bind;}:
     * a class carrying either annotation has its descriptor there. A class that only uses the api
     * (a {@code Scope}, a {@code Split}) is not parsed. The walk visits entries, not bytes: every
     * class loaded after start-up comes through here, and a byte-by-byte search kept the
     * interpreter busy until the JIT compiled it. A pool it cannot walk is searched byte by byte.
     */
    static boolean mentions(byte[] b) {
        if (b.length < 10) return false;
        int count = u2(b, 8);
        int i = 10;
        for (int n = 1; n < count; n++) {
            if (i >= b.length) return false;
            switch (b[i]) {
                case 1 -> { // Utf8: u2 length, bytes
                    if (i + 3 > b.length) return false;
                    int length = u2(b, i + 1);
                    if (length == PLACEMENT_BYTES.length && at(b, i + 3, PLACEMENT_BYTES) || length == BIND_BYTES.length && at(b, i + 3, BIND_BYTES)) return true;
                    i += 3 + length;
                }
                case 3, 4 -> i += 5;                  // Integer, Float
                case 5, 6 -> {                        // Long, Double: two entries
                    i += 9;
                    n++;
                }
                case 7, 8, 16, 19, 20 -> i += 3;      // Class, String, MethodType, Module, Package
                case 9, 10, 11, 12, 17, 18 -> i += 5; // Fieldref, Methodref, InterfaceMethodref, NameAndType, Dynamic, InvokeDynamic
                case 15 -> i += 4;                    // MethodHandle
                default -> {
                    return searched(b);               // a tag this walk does not know
                }
            }
        }
        return false;
    }

    /** The descriptors anywhere in the bytes. */
    static boolean searched(byte[] b) {
        for (int i = 0; i < b.length; i++) {
            if (b[i] == 'L' && (at(b, i, PLACEMENT_BYTES) || at(b, i, BIND_BYTES))) return true;
        }
        return false;
    }

    private static int u2(byte[] b, int i) {
        return (b[i] & 0xff) << 8 | (b[i + 1] & 0xff);
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

