package io.qv4j.testapps;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import javax.management.ObjectName;

/**
 * Makes POOLS fixed pools of 2 one after another (each started, then shut down), then prints the
 * JVM's compiler directives ({@code Compiler.directives_print}) once they match the agent's
 * classes, or after WAIT_MS: {@code directives: } and the command's output.
 * Usage: {@code ChurnApp POOLS WAIT_MS}.
 */
public final class ChurnApp {

    private ChurnApp() {
    }

    public static void main(String[] args) throws Exception {
        int pools = Integer.parseInt(args[0]);
        long wait = Long.parseLong(args[1]);
        for (int i = 0; i < pools; i++) {
            ExecutorService pool = Executors.newFixedThreadPool(2);
            CountDownLatch started = new CountDownLatch(2);
            for (int w = 0; w < 2; w++) pool.execute(started::countDown);
            started.await();
            pool.shutdown();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
        long end = System.nanoTime() + wait * 1_000_000L;
        String directives = directives();
        while (!directives.contains("io/qv4j/agent") && System.nanoTime() - end < 0) {
            Thread.sleep(50);
            directives = directives();
        }
        System.out.println("directives: " + directives);
    }

    private static String directives() throws Exception {
        return String.valueOf(ManagementFactory.getPlatformMBeanServer().invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"),
                "compilerDirectivesPrint", new Object[] {null}, new String[] {String[].class.getName()}));
    }
}
