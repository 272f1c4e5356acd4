package io.qv4j.testapps;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.undertow.Undertow;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.resources.LoopResources;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Servers as users run them, each answering {@code /request-I} (or a gRPC call with that text) with
 * the text upper-cased: {@code vertx N}, {@code reactor N}, {@code grpc N}, {@code undertow N}, with N
 * event loops (I/O threads). Prints each answer ({@code answer I TEXT}), then runs a task on every
 * event loop, which prints {@code thread NAME tid=TID cpus=LIST} (kernel view, read on that thread;
 * blanks in NAME written {@code _}).
 */
public final class ServersApp {

    static final int REQUESTS = 20;
    private static final Map<String, String> SEEN = new ConcurrentHashMap<>();

    public static void main(String[] args) throws Exception {
        int loops = Integer.parseInt(args[1]);
        switch (args[0]) {
            case "vertx" -> vertx(loops);
            case "reactor" -> reactor(loops);
            case "grpc" -> grpc(loops);
            case "undertow" -> undertow(loops);
            case "parallel" -> parallel(loops);
            default -> throw new IllegalArgumentException(args[0]);
        }
        new TreeMap<>(SEEN).forEach((k, v) -> System.out.println(v));
        System.exit(0); // frameworks' non-daemon threads
    }

    /** Records the thread it runs on, once per thread. */
    static void record() {
        Thread t = Thread.currentThread();
        SEEN.computeIfAbsent(t.getName(), k -> "thread " + k.replace(' ', '_') + " tid=" + PoolApp.tid() + " cpus=" + PoolApp.cpus("/proc/thread-self/status"));
    }

    /** Runs {@link #record} on each executor and waits for all. */
    static void onEach(Iterable<? extends Executor> loops) throws Exception {
        for (Executor e : loops) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            e.execute(() -> {
                record();
                done.complete(null);
            });
            done.get(10, TimeUnit.SECONDS);
        }
    }

    /** {@link #REQUESTS} HTTP GETs of {@code /request-I}, the answers printed in order. */
    static void http(int port) throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        for (int i = 0; i < REQUESTS; i++) {
            HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/request-" + i)).build();
            System.out.println("answer " + i + " " + client.send(req, HttpResponse.BodyHandlers.ofString()).body());
        }
    }

    static void vertx(int loops) throws Exception {
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(loops));
        HttpServer server = vertx.createHttpServer().requestHandler(r -> r.response().end(r.path().substring(1).toUpperCase()));
        server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        http(server.actualPort());
        onEach(((io.vertx.core.internal.VertxInternal) vertx).nettyEventLoopGroup());
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    static void reactor(int loops) throws Exception {
        LoopResources resources = LoopResources.create("reactor-http", loops, true);
        DisposableServer server = reactor.netty.http.server.HttpServer.create().host("127.0.0.1").port(0).runOn(resources, false)
                .handle((req, res) -> res.sendString(Mono.just(req.uri().substring(1).toUpperCase()))).bindNow();
        http(server.port());
        onEach(resources.onServer(false));
        server.disposeNow();
    }

    static final MethodDescriptor.Marshaller<String> TEXT = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
            return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
            try {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    static final MethodDescriptor<String, String> UPPER = MethodDescriptor.<String, String>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("qv.Upper/Call")
            .setRequestMarshaller(TEXT).setResponseMarshaller(TEXT).build();

    static void grpc(int loops) throws Exception {
        var boss = new io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup(1);
        var workers = new io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup(loops);
        ServerServiceDefinition service = ServerServiceDefinition.builder("qv.Upper")
                .addMethod(UPPER, ServerCalls.asyncUnaryCall((String req, io.grpc.stub.StreamObserver<String> out) -> {
                    out.onNext(req.toUpperCase());
                    out.onCompleted();
                })).build();
        Server server = io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .bossEventLoopGroup(boss).workerEventLoopGroup(workers)
                .channelType(io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel.class)
                .addService(service).build().start();
        ManagedChannel channel = io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
        for (int i = 0; i < REQUESTS; i++) {
            System.out.println("answer " + i + " " + ClientCalls.blockingUnaryCall(channel, UPPER, CallOptions.DEFAULT, "request-" + i));
        }
        onEach(workers);
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    /** Reactor's {@code Schedulers.newParallel}: N single-thread scheduled pools, {@code parallel-1..N}; a task on each. */
    static void parallel(int n) throws Exception {
        reactor.core.scheduler.Scheduler s = reactor.core.scheduler.Schedulers.newParallel("parallel", n);
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            s.createWorker().schedule(() -> {
                record();
                done.countDown();
            });
        }
        done.await(10, TimeUnit.SECONDS);
        s.dispose();
    }

    static void undertow(int loops) throws Exception {
        Undertow server = Undertow.builder().setIoThreads(loops).setWorkerThreads(2).addHttpListener(0, "127.0.0.1")
                .setHandler(x -> x.getResponseSender().send(x.getRequestPath().substring(1).toUpperCase())).build();
        server.start();
        int port = ((InetSocketAddress) server.getListenerInfo().get(0).getAddress()).getPort();
        http(port);
        java.util.List<Executor> io = new java.util.ArrayList<>();
        for (int i = 0; i < loops; i++) io.add(server.getWorker().getIoThread(i));
        onEach(io);
        server.stop();
    }
}
