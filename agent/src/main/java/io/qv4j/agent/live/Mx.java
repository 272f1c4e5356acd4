package io.qv4j.agent.live;

import io.qv4j.agent.load.NumaMemory;
import io.qv4j.agent.report.Json;

import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The {@code io.qv4j:type=Agent} MXBean: a view of {@link Live#snapshot()}. */
final class Mx implements QvAgentMXBean {

    static final String NAME = "io.qv4j:type=Agent";

    /**
     * Registers the MXBean once an MBean server exists in this JVM (JMX is in use: a management
     * agent, a monitoring library, jconsole); never creates the platform MBean server itself, which
     * costs a cold JVM a hundred milliseconds or more. True when registered or when it never can be.
     */
    static boolean registerIfJmxInUse() {
        try {
            if (MBeanServerFactory.findMBeanServer(null).isEmpty()) return false;
            MBeanServer s = ManagementFactory.getPlatformMBeanServer();
            ObjectName n = new ObjectName(NAME);
            if (!s.isRegistered(n)) s.registerMBean(new Mx(), n);
            return true;
        } catch (Throwable t) {
            return true;
        }
    }

    private static Map<String, Object> report() {
        Map<String, Object> m = Live.snapshot();
        return m == null ? Map.of() : m;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> agent(Map<String, Object> r) {
        Object a = r.get("agent");
        return a instanceof Map ? (Map<String, Object>) a : Map.of();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> pools(Map<String, Object> r) {
        Object p = r.get("pools");
        return p instanceof List ? (List<Map<String, Object>>) p : List.of();
    }

    /** Read when asked, never before: {@code numa_maps} walks the page tables, longer the larger the heap. */
    @Override
    public long[] getMemoryByNode() {
        Map<Integer, Long> by = NumaMemory.of(ProcessHandle.current().pid());
        long[] out = new long[by.isEmpty() ? 0 : java.util.Collections.max(by.keySet()) + 1];
        by.forEach((node, bytes) -> out[node] = bytes);
        return out;
    }

    @Override
    public String[] getSettings() {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, Object> e : agent(report()).entrySet()) {
            if (e.getValue() instanceof Map || e.getValue() instanceof List) continue;
            out.add(e.getKey() + "=" + e.getValue());
        }
        return out.toArray(new String[0]);
    }

    @Override
    @SuppressWarnings("unchecked")
    public String[] getCpuKinds() {
        List<String> out = new ArrayList<>();
        Object kinds = agent(report()).get("cpukinds");
        if (kinds instanceof List) {
            for (Object k : (List<Object>) kinds) {
                if (k instanceof Map) out.add("efficiency " + ((Map<String, Object>) k).get("efficiency") + ": pus " + ((Map<String, Object>) k).get("cpus"));
            }
        }
        return out.toArray(new String[0]);
    }

    @Override
    public String getScope() {
        Object s = agent(report()).get("jvmScope");
        return s == null ? null : s.toString();
    }

    @Override
    public String getNode() {
        Object n = agent(report()).get("node");
        return n == null ? null : Json.write(n).strip();
    }

    @Override
    public PoolInfo[] getPools() {
        List<PoolInfo> out = new ArrayList<>();
        for (Map<String, Object> p : pools(report())) out.add(new PoolView(p));
        return out.toArray(new PoolInfo[0]);
    }

    @Override
    @SuppressWarnings("unchecked")
    public ThreadInfo[] getThreads() {
        List<ThreadInfo> out = new ArrayList<>();
        for (Map<String, Object> p : pools(report())) {
            Object ts = p.get("threads");
            if (!(ts instanceof List)) continue;
            for (Object t : (List<Object>) ts) out.add(new ThreadView(str(p.get("name")), (Map<String, Object>) t));
        }
        return out.toArray(new ThreadInfo[0]);
    }

    @Override
    public String getReportJson() {
        return Json.write(report());
    }

    static String str(Object o) {
        return o == null ? null : o.toString();
    }

    static long num(Object o, long dflt) {
        return o instanceof Number n ? n.longValue() : dflt;
    }

    static boolean bool(Object o) {
        return Boolean.TRUE.equals(o);
    }

    record PoolView(Map<String, Object> m) implements PoolInfo {
        public int getId() {
            return (int) num(m.get("id"), -1);
        }

        public String getName() {
            return str(m.get("name"));
        }

        public String getPoolClass() {
            return str(m.get("class"));
        }

        public boolean isPinned() {
            return bool(m.get("pinned"));
        }

        public String getReason() {
            return str(m.get("reason"));
        }

        public String getPolicy() {
            return str(m.get("policy"));
        }

        public int getTasks() {
            return (int) num(m.get("tasks"), -1);
        }

        public String getScope() {
            return str(m.get("scope"));
        }

        public boolean isSharesPus() {
            return bool(m.get("sharesPus"));
        }

        public boolean isExclusive() {
            return bool(m.get("exclusive"));
        }

        public String getMemory() {
            return str(m.get("memory"));
        }
    }

    record ThreadView(String pool, Map<String, Object> m) implements ThreadInfo {
        public String getPool() {
            return pool;
        }

        public String getName() {
            return str(m.get("name"));
        }

        public long getTid() {
            return num(m.get("tid"), -1);
        }

        public int getSlot() {
            return (int) num(m.get("slot"), -1);
        }

        public String getCpuset() {
            return str(m.get("cpuset"));
        }

        public String getPiece() {
            return str(m.get("piece"));
        }

        public boolean isBound() {
            return bool(m.get("bound"));
        }

        public boolean isExited() {
            return bool(m.get("exited"));
        }

        public String getMemoryNodes() {
            return str(m.get("memoryNodes"));
        }
    }
}
