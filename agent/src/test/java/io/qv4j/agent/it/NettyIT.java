package io.qv4j.agent.it;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.resolver.AddressResolverGroup;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.qv4j.topology.CpuSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

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
 * {@code NioEventLoopGroup(2)}, forked with Netty on its class path. Under the default options its
 * two event loops land on different PUs (kernel view) and every answer is what it is without the
 * agent; with {@code split-at=core,color=packed} under {@code taskset -c P} both stay on P.
 */
class NettyIT {

    static List<Path> javas() throws Exception {
        return Jvm.javas();
    }

    static String jar(Class<?> c) throws Exception {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    static Jvm.App app(Path java, List<String> prefix, String agentArgs) throws Exception {
        List<String> cp = new ArrayList<>(List.of("target/test-classes"));
        for (Class<?> c : List.of(Channel.class, ByteBuf.class, FastThreadLocalThread.class, AddressResolverGroup.class)) cp.add(jar(c));
        String args = agentArgs == null ? null : agentArgs.isEmpty() ? ThreadGroupsIT.ownClaims() : agentArgs + "," + ThreadGroupsIT.ownClaims();
        return Jvm.app(java, prefix, List.of(), args, cp, "io.qv4j.testapps.NettyApp", Set.of("thread"), "40");
    }

    static List<String> loops(Jvm.App r) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, String> e : r.cpus().entrySet()) if (e.getKey().startsWith("nioEventLoopGroup-")) out.add(e.getValue());
        return out;
    }

    static String answers(Jvm.App r) {
        StringBuilder b = new StringBuilder();
        for (String l : r.result().stdout().split("\n")) if (l.startsWith("answer ")) b.append(l).append('\n');
        return b.toString();
    }

    @ParameterizedTest
    @MethodSource("javas")
    void twoEventLoopsOnDifferentPusAndTheSameAnswers(Path java) throws Exception {
        Allowed where = Allowed.unrestricted();
        assumeTrue(where.pus().size() >= 2, "needs two allowed PUs, has " + where.allowed());
        Jvm.App plain = app(java, List.of(), null);
        Jvm.App r = app(java, List.of(), "");
        String out = r.result().toString();
        assertEquals(0, r.result().exitCode(), out);
        assertEquals(40, answers(r).split("\n").length, out);
        assertTrue(answers(r).contains("answer 39 REQUEST-39\n"), out);
        assertEquals(answers(plain), answers(r), "the same answers with and without the agent");
        List<String> loops = loops(r);
        assertEquals(2, loops.size(), "both event loops served: " + out);
        CpuSet a = CpuSet.parse(loops.get(0));
        CpuSet b = CpuSet.parse(loops.get(1));
        assertFalse(a.intersects(b), "the two event loops on different PUs: " + out);
        CpuSet allowed = CpuSet.parse(where.allowed());
        assertTrue(allowed.containsAll(a) && allowed.containsAll(b), out);
        Map<String, Object> pool = RulesAnnotationsIT.pool(r, loopGroupName(r));
        assertEquals(2, ((Number) pool.get("tasks")).intValue(), "T = the group's nThreads: " + out);
        assertEquals("io.netty.channel.nio.NioEventLoopGroup", pool.get("class"), out);
    }

    @ParameterizedTest
    @MethodSource("javas")
    void packedOnCoresUnderOnePuKeepsBothLoopsThere(Path java) throws Exception {
        Allowed all = Allowed.unrestricted();
        assumeTrue(all.pus().size() >= 2 && Allowed.sets().size() > 1, "needs taskset and two PUs");
        Allowed one = Allowed.sets().get(1);
        Jvm.App r = app(java, one.prefix(), "split-at=core,color=packed");
        String out = r.result().toString();
        assertEquals(0, r.result().exitCode(), out);
        assertEquals(40, answers(r).split("\n").length, out);
        List<String> loops = loops(r);
        assertEquals(2, loops.size(), out);
        for (String l : loops) assertEquals(one.allowed(), l, "inside the one allowed PU: " + out);
    }

    @SuppressWarnings("unchecked")
    static String loopGroupName(Jvm.App r) {
        for (Object p : (List<Object>) r.report().get("pools")) {
            String n = (String) ((Map<String, Object>) p).get("name");
            if (n != null && n.startsWith("nioEventLoopGroup-")) return n;
        }
        throw new AssertionError("no event-loop group in the report: " + r.report());
    }
}
