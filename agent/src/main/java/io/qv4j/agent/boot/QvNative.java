package io.qv4j.agent.boot;

/**
 * The JNI library's way into a JDK 24 or later JVM. Never loaded under this name: the agent
 * renames its bytes to {@code java.util.concurrent.QvNative} and defines it in {@code java.base}
 * ({@code inst.NativeDoor}), a module the JDK grants native access, so the library loads with no
 * warning and under {@code --illegal-native-access=deny} without a grant to the agent's unnamed
 * module, which would be one to every unnamed module: the application's own native code keeps the
 * JVM's warning or refusal. JDK types only.
 */
final class QvNative {

    private QvNative() {
    }

    /** Loads the library at {@code path}, then binds the native methods of {@code natives} to it: 0, else the JNI error. */
    static int open(String path, Class<?> natives) {
        System.load(path);
        return bind(natives);
    }

    /**
     * JNI's RegisterNatives for {@code natives}: methods bound so are not linked by name at their
     * first call, the step where the JDK checks the declaring class's module for native access.
     */
    private static native int bind(Class<?> natives);
}
