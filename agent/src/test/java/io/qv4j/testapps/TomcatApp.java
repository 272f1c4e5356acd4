package io.qv4j.testapps;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * Embedded Tomcat serving {@code N} HTTP requests ({@code /sq?n=I} answers {@code I*I}) from a few
 * client threads at once. Prints {@code ok COUNT} (answers that were right) and, per request
 * worker, {@code thread NAME tid=TID cpus=LIST} read on that worker.
 */
public final class TomcatApp {

    private static final Map<String, String> SEEN = new ConcurrentHashMap<>();

    public static void main(String[] args) throws Exception {
        int requests = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(Files.createTempDirectory("qv-tomcat").toString());
        Connector c = new Connector();
        c.setPort(0);
        c.setProperty("address", "127.0.0.1");
        tomcat.setConnector(c);
        Context ctx = tomcat.addContext("", null);
        Tomcat.addServlet(ctx, "sq", new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                SEEN.computeIfAbsent(Thread.currentThread().getName(), ThreadsApp::line);
                long n = Long.parseLong(req.getParameter("n"));
                resp.setContentType("text/plain");
                resp.getWriter().print(n * n);
            }
        });
        ctx.addServletMappingDecoded("/sq", "sq");
        tomcat.start();
        int port = c.getLocalPort();
        ExecutorService clients = Executors.newFixedThreadPool(4, r -> new Thread(r, "client"));
        List<Future<Boolean>> answers = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            final long n = i;
            answers.add(clients.submit(() -> {
                HttpURLConnection h = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + "/sq?n=" + n).toURL().openConnection();
                try (InputStream in = h.getInputStream()) {
                    return new String(in.readAllBytes(), StandardCharsets.US_ASCII).equals(String.valueOf(n * n));
                }
            }));
        }
        int ok = 0;
        for (Future<Boolean> f : answers) if (f.get()) ok++;
        clients.shutdown();
        tomcat.stop();
        tomcat.destroy();
        System.out.println("ok " + ok);
        for (String line : new TreeMap<>(SEEN).values()) System.out.println(line);
    }
}
