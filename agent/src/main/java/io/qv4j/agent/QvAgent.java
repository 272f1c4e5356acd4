package io.qv4j.agent;

import io.qv4j.agent.bind.Binder;
import io.qv4j.agent.bind.Binders;
import io.qv4j.agent.bind.NativeAffinity;
import io.qv4j.agent.boot.AgentThread;
import io.qv4j.agent.config.Config;
import io.qv4j.agent.config.OptionException;
import io.qv4j.agent.config.NodeOptions;
import io.qv4j.agent.config.Options;
import io.qv4j.agent.config.OptionsParser;
import io.qv4j.agent.config.PolicyWords;
import io.qv4j.agent.inst.AnnotationSupport;
import io.qv4j.agent.inst.Boot;
import io.qv4j.agent.inst.Dispatcher;
import io.qv4j.agent.inst.HookTransformer;
import io.qv4j.agent.inst.JavaBase;
import io.qv4j.agent.inst.JitDirective;
import io.qv4j.agent.inst.NativeDoor;
import io.qv4j.agent.io.UserFiles;
import io.qv4j.agent.live.Live;
import io.qv4j.agent.load.LoadMeter;
import io.qv4j.agent.log.Log;
import io.qv4j.agent.node.Node;
import io.qv4j.agent.place.Env;
import io.qv4j.agent.place.Neighbours;
import io.qv4j.agent.place.Placer;
import io.qv4j.agent.place.Rebalancer;
import io.qv4j.agent.platform.TopologyCache;
import io.qv4j.agent.platform.TopologyInput;
import io.qv4j.agent.report.Json;
import io.qv4j.agent.report.PlacementReport;
import io.qv4j.topology.Topology;

import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * The -javaagent entry point. It never throws: an exception escaping premain kills the JVM.
 * Start-up does the minimum on the main thread (parse options, load the JNI library, define the
 * boot part, instrument the JDK's pool classes); the topology and the binder are made on a
 * background thread, and a worker waits for them only when it starts.
 */
public final class QvAgent {

    /** How long a starting worker waits for the background start-up before running unpinned for now. */
    static final long WAIT_MILLIS = 3000;

    private static volatile Placer placer;
    private static volatile Rebalancer rebalancer;
    private static volatile JitDirective jit;
    private static long t0;

    private QvAgent() {
    }

    public static void premain(String args, Instrumentation inst) {
        start(args, inst, false);
    }

    public static void agentmain(String args, Instrumentation inst) {
        start(args, inst, true);
    }

    private static void start(String args, Instrumentation inst, boolean attached) {
        t0 = System.nanoTime();
        Config config;
        try {
            config = OptionsParser.fromEnvironment(args);
        } catch (OptionException e) {
            if (e.strict() && !attached) {
                Log.info(e.getMessage() + "; strict=true: stopping the JVM");
                System.exit(2);
            }
            Log.info(e.getMessage() + "; agent disabled");
            if (attached) Live.refusedAttach(JavaBase.agentProperties(inst), e.getMessage());
            if (e.strict()) throw new IllegalArgumentException("qv: " + e.getMessage());
            return;
        } catch (Throwable t) {
            Log.info("agent disabled: " + t);
            return;
        }
        if (placer != null) {
            Log.info("agent already running: ignoring the second start");
            return;
        }
        long tOptions = System.nanoTime();
        Options o = config.options();
        if (!o.enabled()) return;
        try {
            Log.verbose(o.verbose());
            if (!config.ignoredEnv().isEmpty()) Log.debug("ignored environment variables that name no option: " + String.join(", ", config.ignoredEnv()));
            // The topology and the binding library load on another PU while the placer is built and
            // the hooks go in. No lambdas or indy string concatenation on the start-up path: each
            // costs milliseconds cold.
            // before the start-up thread may load the JNI library
            if (Runtime.version().feature() >= NativeDoor.FIRST_JDK && o.bind() != Options.Bind.OFF) NativeAffinity.loadThrough(new NativeDoor(inst));
            Init init = new Init(o);
            new AgentThread("qv-init", init).start();
            Placer p = init.build(config);
            Dispatcher d = new Dispatcher(p, attached);
            long tPlacer = System.nanoTime();
            Boot.Installed installed = Boot.install(inst, d, attached, o.bind() != Options.Bind.OFF);
            HookTransformer t = installed.transformer();
            long tHooks = System.nanoTime();
            d.hooks(Class.forName(Boot.HOOKS, false, null));
            jit = new JitDirective(inst);
            d.jit(jit);
            AnnotationSupport.install(inst, p, o);
            placer = p;
            p.events(Live.events());
            Live.started(JavaBase.agentProperties(inst), new java.util.function.Supplier<java.util.Map<String, Object>>() {
                @Override
                public java.util.Map<String, Object> get() {
                    return PlacementReport.snapshot(p, rebalancer, c2Directive());
                }
            }, args, attached);
            if (o.report() != null) {
                Runtime.getRuntime().addShutdownHook(new AgentThread("qv-report", new Runnable() {
                    @Override
                    public void run() {
                        writeReport(p, o.report(ProcessHandle.current().pid()));
                    }
                }));
            }
            if (!attached) p.memoryForJvm(); // only a thread can set its own policy: premain runs on the main thread
            Log.debug("premain " + (System.nanoTime() - t0) / 1000 + " us (options " + (tOptions - t0) / 1000 + " us, placer " + (tPlacer - tOptions) / 1000
                    + " us, hooks " + (tHooks - tPlacer) / 1000 + " us); agent on: "
                    + o.policy() + ", bind=" + o.bind().word() + ", hooks " + t.done() + " (" + t.source() + "), plain threads from " + installed.threads()
                    + ", availableProcessors() on a pinned thread: " + installed.processors() + (config.rules().isEmpty() ? "" : ", " + config.rules().list().size() + " rules"));
        } catch (Throwable t) {
            Log.info("agent disabled: " + t);
            if (o.strict() && !attached) {
                System.exit(2);
            }
        }
    }

    /**
     * The background start-up: binder, topology, this JVM's share of the node; then, once the main
     * thread has handed the placer over, placement may begin.
     */
    private static final class Init implements Runnable {
        private final Options o;
        private final CountDownLatch built = new CountDownLatch(1);
        private volatile Placer p;

        Init(Options o) {
            this.o = o;
        }

        private long binderNanos;
        private long topologyNanos;
        private long nodeNanos;
        private boolean topologyCached;

        /** Builds the placer on the calling thread and hands it over; if that fails, this thread ends with nothing done. */
        Placer build(Config config) {
            Placer made = null;
            try {
                made = new Placer(config.options(), config.rules(), WAIT_MILLIS);
                return made;
            } finally {
                p = made;
                built.countDown();
            }
        }

        @Override
        public void run() {
            Env e = discover();
            try {
                built.await();
            } catch (InterruptedException ex) {
                return;
            }
            if (p == null) return;
            p.ready(e);
            if (e.node() != null && e.node().neighboursMillis() > 0) Neighbours.start(p, e.node().load(), e.node().neighboursMillis());
            if (o.rebalance() != null && o.rebalance().on() && e.topology() != null) rebalancer = Rebalancer.start(p, o.rebalance());
            Live.watchedThrough(e.node() == null || e.node().claims() == null ? null : e.node().claims().watchFile());
            Live.ready();
            Log.debug("ready " + (System.nanoTime() - t0) / 1000 + " us after premain began (binder " + binderNanos / 1000 + " us, topology "
                    + topologyNanos / 1000 + (topologyCached ? " us from the cache, node " : " us, node ") + nodeNanos / 1000 + " us)"
                    + (e.topology() == null || e.topology().info().get("caches.source") == null ? "" : "; caches from " + e.topology().info().get("caches.source")));
        }

        /** Binder, topology and this JVM's share of the node. */
        private Env discover() {
            long tStart = System.nanoTime();
            LoadMeter load = o.topology() == null && o.bind() == Options.Bind.ON && o.node().neighboursMillis() > 0 ? LoadMeter.started() : null;
            Binder binder = Binders.choose(o.bind());
            if (o.bind() == Options.Bind.ON && o.topology() == null && o.node().claims() != NodeOptions.Claims.OFF && !NativeAffinity.isLoaded()) Node.readAhead();
            long tBinder = System.nanoTime();
            Topology topo = null;
            String problem = null;
            try {
                if (o.topology() != null) {
                    topo = TopologyInput.input(o.topology());
                } else {
                    TopologyCache cache = TopologyCache.open();
                    topo = cache.live(Binders.cpuid(o.bind()));
                    topologyCached = cache.hit();
                }
            } catch (Throwable t) {
                problem = "cannot read the topology" + (o.topology() != null ? " " + o.topology() : "") + " (" + t.getMessage() + ")";
                Log.info(problem + ": pools run unpinned");
            }
            String badKind = topo == null ? null : PolicyWords.missingKind(o.policy(), topo);
            if (badKind != null) {
                // the options are read before the topology: an option error, found only now
                problem = badKind;
                topo = null;
                Log.info(badKind + ": pools run unpinned");
            }
            long tTopo = System.nanoTime();
            Node node = null;
            if (topo != null) {
                try {
                    node = Node.setup(o.node(), topo, o.topology() == null, binder, System.getenv(), load);
                } catch (Throwable t) {
                    Log.info("cannot work out this JVM's share of the node (" + t + "): pools use the whole allowed set");
                }
            }
            binderNanos = tBinder - tStart;
            topologyNanos = tTopo - tBinder;
            nodeNanos = System.nanoTime() - tTopo;
            return new Env(topo, topo == null ? null : node != null ? node.jvm() : topo.allowed(), topo == null ? Binder.NONE : binder, problem, node, o.topology() == null);
        }
    }

    private static String c2Directive() {
        JitDirective j = jit;
        return j == null ? null : j.outcome();
    }

    static void writeReport(Placer p, String file) {
        try {
            UserFiles.writeAtomically(Path.of(file), Json.write(PlacementReport.atExit(p, rebalancer, c2Directive())).getBytes(StandardCharsets.UTF_8));
        } catch (Throwable t) {
            Log.info("cannot write the report " + file + ": " + t);
        }
    }
}
