package io.qv4j.agent.it;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.Socket;
import io.netty.resolver.AddressResolverGroup;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.qv4j.topology.CpuSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Netty's event loops recognized with no rule and no code (JDK 17 and 25): a real TCP server on
 * {@code NioEventLoopGroup(2)}, and on {@code EpollEventLoopGroup(2)} where the native epoll
 * transport loads, forked with Netty on its class path. Under the default options its two event
 * loops land on different PUs (kernel view) and every answer is what it is without the agent; with
 * {@code split-at=core,color=packed} under {@code taskset -c P} both stay on P.
 */
class NettyIT {

    /** Each JDK with each transport: {@code nio}, {@code epoll}. */
    static List<Arguments> transports() throws Exception {
        List<Arguments> out = new ArrayList<>();
        for (Path java : Jvm.javas()) for (String t : List.of("nio", "epoll")) out.add(Arguments.of(java, t));
        return out;
    }

    /** The event-loop threads' name prefix: {@code nioEventLoopGroup-}, {@code epollEventLoopGroup-}. */
    static String loopPrefix(String transport) {
        return transport + "EventLoopGroup-";
    }

    /** epoll runs only where Netty's native library loads (Linux on x86-64 here); elsewhere the case is skipped. */
    static void assumeTransport(String transport) {
        if (transport.equals("epoll")) assumeTrue(Epoll.isAvailable(), "native epoll: " + Epoll.unavailabilityCause());
    }

    /** The native epoll jar (a classifier jar of native libraries, no class of its own to find it by). */
    static String epollNativeJar() {
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (e.contains("netty-transport-native-epoll") && e.endsWith("linux-x86_64.jar")) return e;
        }
        throw new AssertionError("netty-transport-native-epoll linux-x86_64 not on the test class path");
    }

    static String jar(Class<?> c) throws Exception {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    static Jvm.App app(Path java, List<String> prefix, String agentArgs, String transport) throws Exception {
        List<String> cp = new ArrayList<>(List.of("target/test-classes"));
        for (Class<?> c : List.of(Channel.class, ByteBuf.class, FastThreadLocalThread.class, AddressResolverGroup.class)) cp.add(jar(c));
        if (transport.equals("epoll")) {
            cp.add(jar(Epoll.class));
            cp.add(jar(Socket.class));
            cp.add(epollNativeJar());
        }
        String args = agentArgs == null ? null : agentArgs.isEmpty() ? ThreadGroupsIT.ownClaims() : agentArgs + "," + ThreadGroupsIT.ownClaims();
        return Jvm.app(java, prefix, List.of(), args, cp, "io.qv4j.testapps.NettyApp", Set.of("thread"), "40", transport);
    }

    static List<String> loops(Jvm.App r, String transport) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, String> e : r.cpus().entrySet()) if (e.getKey().startsWith(loopPrefix(transport))) out.add(e.getValue());
        return out;
    }

    static String answers(Jvm.App r) {
        StringBuilder b = new StringBuilder();
        for (String l : r.result().stdout().split("\n")) if (l.startsWith("answer ")) b.append(l).append('\n');
        return b.toString();
    }

    @ParameterizedTest
    @MethodSource("transports")
    void twoEventLoopsOnDifferentPusAndTheSameAnswers(Path java, String transport) throws Exception {
        Allowed where = Allowed.unrestricted();
        assumeTrue(where.pus().size() >= 2, "needs two allowed PUs, has " + where.allowed());
        assumeTransport(transport);
        Jvm.App plain = app(java, List.of(), null, transport);
        Jvm.App r = app(java, List.of(), "", transport);
        String out = r.result().toString();
        assertEquals(0, r.result().exitCode(), out);
        assertEquals(40, answers(r).split("\n").length, out);
        assertTrue(answers(r).contains("answer 39 REQUEST-39\n"), out);
        assertEquals(answers(plain), answers(r), "the same answers with and without the agent");
        List<String> loops = loops(r, transport);
        assertEquals(2, loops.size(), "both event loops served: " + out);
        CpuSet a = CpuSet.parse(loops.get(0));
        CpuSet b = CpuSet.parse(loops.get(1));
        assertFalse(a.intersects(b), "the two event loops on different PUs: " + out);
        CpuSet allowed = CpuSet.parse(where.allowed());
        assertTrue(allowed.containsAll(a) && allowed.containsAll(b), out);
        Map<String, Object> pool = RulesAnnotationsIT.pool(r, loopGroupName(r, transport));
        assertEquals(2, ((Number) pool.get("tasks")).intValue(), "T = the group's nThreads: " + out);
        String group = transport.equals("epoll") ? "io.netty.channel.epoll.EpollEventLoopGroup" : "io.netty.channel.nio.NioEventLoopGroup";
        assertEquals(group, pool.get("class"), out);
    }

    @ParameterizedTest
    @MethodSource("transports")
    void packedOnCoresUnderOnePuKeepsBothLoopsThere(Path java, String transport) throws Exception {
        Allowed all = Allowed.unrestricted();
        assumeTrue(all.pus().size() >= 2 && Allowed.sets().size() > 1, "needs taskset and two PUs");
        assumeTransport(transport);
        Allowed one = Allowed.sets().get(1);
        Jvm.App r = app(java, one.prefix(), "split-at=core,color=packed", transport);
        String out = r.result().toString();
        assertEquals(0, r.result().exitCode(), out);
        assertEquals(40, answers(r).split("\n").length, out);
        List<String> loops = loops(r, transport);
        assertEquals(2, loops.size(), out);
        for (String l : loops) assertEquals(one.allowed(), l, "inside the one allowed PU: " + out);
    }

    @SuppressWarnings("unchecked")
    static String loopGroupName(Jvm.App r, String transport) {
        for (Object p : (List<Object>) r.report().get("pools")) {
            String n = (String) ((Map<String, Object>) p).get("name");
            if (n != null && n.startsWith(loopPrefix(transport))) return n;
        }
        throw new AssertionError("no event-loop group in the report: " + r.report());
    }
}
