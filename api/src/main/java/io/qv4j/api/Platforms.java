package io.qv4j.api;

import java.util.Iterator;
import java.util.ServiceLoader;

/** Holds the platform behind {@link Platform#current()}: an installed one, else a service provider. */
final class Platforms {

    static final String NONE = "no qv4j platform: run with the qv4j agent jar on the class path or install one";

    private static volatile Platform installed;
    private static volatile Platform discovered;

    private Platforms() {
    }

    static void install(Platform platform) {
        installed = platform;
    }

    static Platform current() {
        Platform p = installed;
        if (p != null) return p;
        p = discovered;
        if (p != null) return p;
        synchronized (Platforms.class) {
            if (discovered == null) {
                // Platform's own loader, not the caller's context loader: the answer is cached,
                // so it must not depend on which thread happened to ask first.
                discovered = discover(Platform.class.getClassLoader());
            }
            return discovered;
        }
    }

    /** The first provider visible to {@code loader}. Not cached: a missing provider is an error each time. */
    static Platform discover(ClassLoader loader) {
        Iterator<Platform> providers = ServiceLoader.load(Platform.class, loader).iterator();
        if (!providers.hasNext()) throw new IllegalStateException(NONE);
        return providers.next();
    }
}
