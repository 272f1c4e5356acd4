package io.qv4j.testapps;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Another process holding a lock: takes an exclusive lock on file {@code args[0]} (made if
 * missing), prints {@code locked}, and holds it until its standard input closes.
 */
public final class LockFileApp {

    private LockFileApp() {
    }

    public static void main(String[] args) throws Exception {
        try (FileChannel ch = FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ch.lock();
            System.out.println("locked");
            System.out.flush();
            while (System.in.read() >= 0) {
                // held until the test closes our input
            }
        }
    }
}
