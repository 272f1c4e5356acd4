package io.qv4j.agent.node;

import io.qv4j.agent.boot.AgentThread;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * The {@code qv-claims} thread, which keeps held lock files fresh ({@link Claims#refresh}), and
 * the touch it does. A daemon that sleeps {@code claims-refresh} at a time; started by the first
 * claim, so a JVM that pins nothing has none.
 */
final class KeepFresh {

    private KeepFresh() {
    }

    /**
     * Starts the thread. It is made under the placement lock on an application thread, so it does
     * not inherit that thread's inheritable thread-locals (their {@code childValue} is application
     * code); anything it throws stays in it.
     */
    static void start(Claims claims) {
        new AgentThread("qv-claims", new Runnable() { // no lambda: cold invokedynamic costs milliseconds
            @Override
            public void run() {
                for (;;) {
                    try {
                        Thread.sleep(claims.refreshMillis());
                        claims.refresh();
                    } catch (InterruptedException e) {
                        return;
                    } catch (Throwable e) {
                        // best effort: the next round tries again
                    }
                }
            }
        }).start();
    }

    /**
     * Sets mtime by path ({@code java.io.File} calls utimes on the path: no descriptor is opened,
     * whose closing would drop this process's lock on the file) and, given the held channel, atime
     * by reading from it (tmpwatch goes by atime; relatime updates it once mtime is newer).
     */
    static void touch(Path p, long now, FileChannel held) {
        try {
            new File(p.toString()).setLastModified(now);
            if (held != null) held.read(ByteBuffer.allocate(1), 0);
        } catch (IOException | RuntimeException e) {
            // the next refresh tries again
        }
    }
}
