package io.qv4j.testapps;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Netty TCP server on one {@code NioEventLoopGroup(2)}, or with the argument {@code epoll} one
 * {@code EpollEventLoopGroup(2)} (acceptor and connections on the same two event loops), answering
 * each request with its bytes upper-cased. Clients on plain sockets send {@code N} requests over
 * several connections; the app prints each answer ({@code answer I TEXT})
 * and, per event-loop thread, {@code thread NAME tid=TID cpus=LIST} read on that thread.
 */
public final class NettyApp {

    private static final Map<String, String> SEEN = new ConcurrentHashMap<>();

    public static void main(String[] args) throws Exception {
        int requests = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        boolean epoll = args.length > 1 && args[1].equals("epoll");
        EventLoopGroup group = epoll ? Epoll.group() : new NioEventLoopGroup(2);
        Class<? extends ServerChannel> channel = epoll ? Epoll.channel() : NioServerSocketChannel.class;
        try {
            ServerBootstrap b = new ServerBootstrap().group(group).channel(channel)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new Upper());
                        }
                    });
            Channel server = b.bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            StringBuilder out = new StringBuilder();
            int perConnection = 10;
            for (int c = 0; c * perConnection < requests; c++) {
                try (Socket s = new Socket("127.0.0.1", port)) {
                    OutputStream o = s.getOutputStream();
                    InputStream in = s.getInputStream();
                    for (int i = c * perConnection; i < Math.min(requests, (c + 1) * perConnection); i++) {
                        byte[] req = ("request-" + i + "\n").getBytes(StandardCharsets.US_ASCII);
                        o.write(req);
                        o.flush();
                        byte[] ans = in.readNBytes(req.length);
                        out.append("answer ").append(i).append(' ').append(new String(ans, StandardCharsets.US_ASCII).strip()).append('\n');
                    }
                }
            }
            server.close().sync();
            System.out.print(out);
        } finally {
            group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
        for (String line : new TreeMap<>(SEEN).values()) System.out.println(line);
    }

    /** The epoll transport, in a class of its own: loaded only when asked for. */
    static final class Epoll {
        static EventLoopGroup group() {
            return new EpollEventLoopGroup(2);
        }

        static Class<? extends ServerChannel> channel() {
            return EpollServerSocketChannel.class;
        }
    }

    /** Upper-cases every byte it reads, recording the event loop's affinity once. */
    static final class Upper extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            String name = Thread.currentThread().getName();
            SEEN.computeIfAbsent(name, ThreadsApp::line);
            ByteBuf in = (ByteBuf) msg;
            byte[] b = new byte[in.readableBytes()];
            in.readBytes(b);
            in.release();
            ctx.writeAndFlush(Unpooled.wrappedBuffer(new String(b, StandardCharsets.US_ASCII).toUpperCase().getBytes(StandardCharsets.US_ASCII)));
        }
    }
}
