package io.qv4j.agent.boot;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AgentThreadTest {

    @Test
    void itRunsItsTaskWithoutEnteringThreadRunWhereTheHooksSit() throws Exception {
        // Thread.run() is where the start hook goes in: an agent thread must override it
        assertEquals(AgentThread.class, AgentThread.class.getMethod("run").getDeclaringClass());
        AtomicReference<String> ran = new AtomicReference<>();
        Thread t = new AgentThread("qv-test", new Runnable() {
            @Override
            public void run() {
                ran.set(Thread.currentThread().getName());
            }
        });
        assertTrue(t.isDaemon());
        t.start();
        t.join();
        assertEquals("qv-test", ran.get());
    }

    @Test
    void itDoesNotInheritTheApplicationsInheritableThreadLocals() throws Exception {
        InheritableThreadLocal<String> app = new InheritableThreadLocal<>() {
            @Override
            protected String childValue(String parent) {
                throw new AssertionError("application code ran for an agent thread");
            }
        };
        app.set("app");
        AtomicReference<String> seen = new AtomicReference<>("unset");
        Thread t = new AgentThread("qv-test", new Runnable() {
            @Override
            public void run() {
                seen.set(app.get());
            }
        });
        t.start();
        t.join();
        assertNull(seen.get());
        app.remove();
    }
}
