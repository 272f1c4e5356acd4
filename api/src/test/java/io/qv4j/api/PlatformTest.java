package io.qv4j.api;

import io.qv4j.topology.CpuSet;
import io.qv4j.topology.Topology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PlatformTest {

    /** Registered as a service provider only inside {@link #serviceProviderIsFoundWhenNothingIsInstalled}. */
    public static final class ServicePlatform extends DelegatingPlatform {
        public ServicePlatform() {
            super(new RecordingPlatform(TestTopologies.machine(1, 2, 1)));
        }
    }

    @AfterEach
    void uninstall() {
        Platform.install(null);
    }

    @Test
    void currentIsTheInstalledPlatformOnEveryThread() throws Exception {
        Topology t = TestTopologies.machine(1, 4, 1);
        RecordingPlatform p = new RecordingPlatform(t);
        Platform.install(p);
        assertSame(p, Platform.current());
        Platform[] seen = new Platform[1];
        Thread other = new Thread(() -> seen[0] = Platform.current());
        other.start();
        other.join(5000);
        assertSame(p, seen[0]);
    }

    @Test
    void withoutInstalledPlatformOrProviderCurrentSaysWhatToDo() {
        // The test class path registers no provider.
        IllegalStateException e = assertThrows(IllegalStateException.class, Platform::current);
        assertEquals("no qv4j platform: run with the qv4j agent jar on the class path or install one", e.getMessage());
    }

    @Test
    void uninstallingFallsBackToDiscovery() {
        Platform.install(new RecordingPlatform(TestTopologies.machine(1, 1, 1)));
        Platform.install(null);
        assertThrows(IllegalStateException.class, Platform::current);
    }

    @Test
    void serviceProviderIsFoundWhenNothingIsInstalled(@TempDir Path dir) throws IOException {
        Path services = dir.resolve("META-INF/services");
        Files.createDirectories(services);
        Files.writeString(services.resolve(Platform.class.getName()), ServicePlatform.class.getName() + "\n");
        try (URLClassLoader loader = new URLClassLoader(new URL[]{dir.toUri().toURL()}, getClass().getClassLoader())) {
            assertInstanceOf(ServicePlatform.class, Platforms.discover(loader));
        }
    }

    /** Lets a provider class with a no-argument constructor reuse the recording platform. */
    abstract static class DelegatingPlatform implements Platform {
        private final Platform delegate;

        DelegatingPlatform(Platform delegate) {
            this.delegate = delegate;
        }

        @Override
        public Topology discover() {
            return delegate.discover();
        }

        @Override
        public Binding bind(CpuSet cpus) {
            return delegate.bind(cpus);
        }

        @Override
        public CpuSet currentBinding() {
            return delegate.currentBinding();
        }
    }
}
