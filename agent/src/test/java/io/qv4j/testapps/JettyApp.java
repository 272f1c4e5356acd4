package io.qv4j.testapps;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Embedded Jetty (core handler, no servlets) on a {@code QueuedThreadPool} serving {@code N} HTTP
 * requests ({@code /sq?n=I} answers {@code I*I}) from four client threads at once. Arguments:
 * {@code N} and the pool's {@code maxThreads} ({@code 0}: Jetty's default pool, 200). With a small
 * pool the selector accepts (no acceptor thread), leaving the rest to serve. Prints
 * {@code ok COUNT} (answers that were right), {@code answers SHA256} of every body in request order
 * and, per thread that served, {@code thread NAME tid=TID cpus=LIST} read on that thread.
 */
public final class JettyApp {

    private static final Map<String, String> SEEN = new ConcurrentHashMap<>();

    public static void main(String[] args) throws Exception {
        int requests = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int maxThreads = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        QueuedThreadPool pool = maxThreads > 0 ? new QueuedThreadPool(maxThreads, maxThreads) : new QueuedThreadPool();
        Server server = new Server(pool);
        ServerConnector c = maxThreads > 0 ? new ServerConnector(server, 0, 1) : new ServerConnector(server);
        c.setHost("127.0.0.1");
        c.setPort(0);
        server.addConnector(c);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                SEEN.computeIfAbsent(Thread.currentThread().getName(), ThreadsApp::line);
                long n = Long.parseLong(Request.extractQueryParameters(request).getValue("n"));
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
                Content.Sink.write(response, true, String.valueOf(n * n), callback);
                return true;
            }
        });
        server.start();
        int port = c.getLocalPort();
        ExecutorService clients = Executors.newFixedThreadPool(4, r -> new Thread(r, "client"));
        List<Future<String>> answers = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            final long n = i;
            answers.add(clients.submit(() -> {
                HttpURLConnection h = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + "/sq?n=" + n).toURL().openConnection();
                try (InputStream in = h.getInputStream()) {
                    return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
                }
            }));
        }
        int ok = 0;
        MessageDigest all = MessageDigest.getInstance("SHA-256");
        for (int i = 0; i < requests; i++) {
            String body = answers.get(i).get();
            if (body.equals(String.valueOf((long) i * i))) ok++;
            all.update((body + "\n").getBytes(StandardCharsets.US_ASCII));
        }
        clients.shutdown();
        server.stop();
        System.out.println("ok " + ok);
        System.out.println("answers " + HexFormat.of().formatHex(all.digest()));
        for (String line : new TreeMap<>(SEEN).values()) System.out.println(line);
    }
}
