package io.qv4j.agent.place;

/**
 * Recognizes the threads of one framework's thread group when they start, by class and thread
 * name only (no compile-time dependency on the framework). One small class per framework.
 */
interface ThreadRecognizer {

    /** Whether threads of this class may be the framework's; asked once per thread class. */
    boolean applies(Class<?> threadClass);

    /** The thread's group, or null if it is not one of the framework's; {@code task} is its Runnable (may be null). */
    ThreadSet recognize(Thread t, Object task);
}
