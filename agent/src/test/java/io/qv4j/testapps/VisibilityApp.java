package io.qv4j.testapps;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Application code under test: tries {@code Class.forName} on every class name in the file given
 * as argument, from the application class loader, and prints {@code visible NAME} for each that
 * loads; then {@code platform CLASS} (what {@code io.qv4j.api.Platform.current()} found) and
 * {@code done}.
 */
public final class VisibilityApp {

    public static void main(String[] args) throws Exception {
        for (String name : Files.readAllLines(Path.of(args[0]))) {
            try {
                Class.forName(name, false, VisibilityApp.class.getClassLoader());
                System.out.println("visible " + name);
            } catch (ClassNotFoundException | LinkageError expected) {
                // hidden, as it should be
            }
        }
        System.out.println("platform " + io.qv4j.api.Platform.current().getClass().getName()
                + " " + io.qv4j.api.Platform.current().discover().allowed());
        System.out.println("done");
    }
}
