package io.qv4j.agent.place;

import io.qv4j.agent.bind.NativeAffinity;

import java.util.HashMap;
import java.util.Map;

/**
 * The calling thread's innermost frames as a stack trace gives them, read from the JVM's own
 * frames through the agent's JNI library (JVMTI) and named once per call site: a frame is a
 * method and a bytecode index, and its names, file and line are kept. A throwable's stack trace
 * names every frame of the whole stack each time it is read, on the thread that makes the pool:
 * warm, as fast under 8 frames (2 µs), 27 µs against 3.5 µs under 200 (DESIGN.md §6.2).
 */
final class CallSites {

    /** Frames read: a pool's creator sits a few frames below the hook's, far above this. */
    static final int DEPTH = 32;
    /** Call sites kept; past this they are forgotten and named again as they come. */
    static final int MAX_SITES = 4096;

    /** A frame: a method ID and a bytecode index. Not a record: a record's first equals or hashCode spins method handles. */
    private static final class Site {
        final long method;
        final long location;

        Site(long method, long location) {
            this.method = method;
            this.location = location;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Site s && s.method == method && s.location == location;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(method * 31 + location);
        }
    }

    private static final Map<Site, StackTraceElement> NAMED = new HashMap<>();

    private CallSites() {
    }

    /**
     * The innermost {@value #DEPTH} frames or fewer, innermost first (the library's own frame and
     * this method's among them); null where the library is not loaded or cannot tell a frame.
     * Frames of hidden classes are there too (lambdas' and method handles'), which a stack trace leaves out.
     */
    static StackTraceElement[] innermost() {
        long[] methods = new long[DEPTH];
        long[] locations = new long[DEPTH];
        int n = NativeAffinity.frames(methods, locations);
        if (n <= 0) return null;
        StackTraceElement[] frames = new StackTraceElement[n];
        synchronized (NAMED) {
            if (NAMED.size() >= MAX_SITES) NAMED.clear();
            for (int i = 0; i < n; i++) {
                Site s = new Site(methods[i], locations[i]);
                StackTraceElement f = NAMED.get(s);
                if (f == null) {
                    f = NativeAffinity.frame(methods[i], locations[i]);
                    if (f == null) return null;
                    NAMED.put(s, f);
                }
                frames[i] = f;
            }
        }
        return frames;
    }
}
