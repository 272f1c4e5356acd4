package io.qv4j.agent.bind;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Native access for this package's module alone, where the launcher made it a named module of its
 * own and opened {@code java.lang} to it (JDK 24 and later, {@code launch.NativeModule}): the
 * JDK's own per-module switch, which {@code --enable-native-access=MODULE} sets for modules of the
 * boot layer, set for this module before it loads a library. Not the unnamed modules' switch: the
 * application's own native code keeps the JVM's warning or refusal.
 */
final class NativeAccess {

    private static String problem;
    private static boolean asked;

    private NativeAccess() {
    }

    /** Grants it once; null when granted or not needed (an unnamed module: older JDKs, the command line), else why not. */
    static synchronized String grant() {
        if (asked) return problem;
        asked = true;
        Module mine = NativeAccess.class.getModule();
        if (!mine.isNamed()) return null;
        try {
            MethodHandle enable = MethodHandles.privateLookupIn(Module.class, MethodHandles.lookup())
                    .findVirtual(Module.class, "implAddEnableNativeAccess", MethodType.methodType(Module.class));
            Module granted = (Module) enable.invokeExact(mine);
            return null;
        } catch (Throwable t) {
            return problem = "this JDK does not let the agent grant its module " + mine.getName() + " native access (" + t + ")";
        }
    }
}
