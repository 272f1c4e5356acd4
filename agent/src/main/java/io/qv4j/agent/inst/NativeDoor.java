package io.qv4j.agent.inst;

import io.qv4j.agent.bind.NativeAffinity;

import java.lang.instrument.Instrumentation;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Native access for the JNI library alone on JDK 24 and later (DESIGN.md §6.6). The JDK checks a
 * library load and the by-name linking of a native method for the module of the class doing it;
 * the agent's classes are in an unnamed module, whose access is the one all unnamed modules
 * share, so granting it would also take the application's own native code its warning (the JVM
 * warns once per module) and its refusal under {@code --illegal-native-access=deny}. So the library
 * is loaded by {@code java.util.concurrent.QvNative}, the boot part {@code boot.QvNative} defined in
 * {@code java.base} (which has native access), and it binds {@link NativeAffinity}'s methods itself
 * (JNI RegisterNatives), so that none is linked by name. That class is package-private: no
 * application code can reach it.
 */
public final class NativeDoor implements NativeAffinity.Door {

    /** The first JDK that checks JNI (JEP 472); 22 and 23 check only the foreign function API, which the agent does not use. */
    public static final int FIRST_JDK = 24;
    static final String CLASS = "java.util.concurrent.QvNative";
    private static final String TEMPLATE = "io/qv4j/agent/boot/QvNative";

    private final Instrumentation inst;

    public NativeDoor(Instrumentation inst) {
        this.inst = inst;
    }

    @Override
    public void open(String path, Class<?> natives) throws Throwable {
        MethodHandle open;
        try {
            MethodHandles.Lookup l = JavaBase.inJavaUtilConcurrent(inst);
            Class<?> c;
            try {
                c = Class.forName(CLASS, false, null); // an earlier agent in this JVM (an attach after a failed start)
            } catch (ClassNotFoundException notYet) {
                c = l.defineClass(Boot.renamed(ClassCache.open(), TEMPLATE, CLASS));
            }
            open = l.findStatic(c, "open", MethodType.methodType(int.class, String.class, Class.class));
        } catch (Exception | LinkageError e) {
            throw new Closed(e.toString(), e);
        }
        int rc = (int) open.invokeExact(path, natives);
        if (rc != 0) throw new UnsatisfiedLinkError("binding " + natives.getName() + "'s native methods failed (JNI error " + rc + ")");
    }
}
