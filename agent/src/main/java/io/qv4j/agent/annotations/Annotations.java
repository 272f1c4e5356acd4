package io.qv4j.agent.annotations;

import io.qv4j.agent.config.Policy;
import io.qv4j.agent.boot.QvHooks;
import io.qv4j.agent.log.Log;
import io.qv4j.agent.config.Options;
import io.qv4j.agent.place.Annotated;
import io.qv4j.agent.place.Env;
import io.qv4j.agent.place.Placer;
import io.qv4j.topology.CpuSet;

import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.function.ObjIntConsumer;

/**
 * What {@code @Placement} and {@code @Bind} do at run time. The {@link AnnotationTransformer}
 * registers each annotation it finds (an id) and inserts calls to the boot hooks, which land here:
 * <ul>
 * <li>placement enter/exit: a per-thread stack of policy ids, pushed at entry of an annotated
 * method (or any method of an annotated class) and popped at its exit, normal or exceptional; the
 * top is the innermost annotation, recorded by the placer when a pool is made on that thread;</li>
 * <li>field set: the pool assigned to an annotated field takes the field's policy;</li>
 * <li>bind enter/exit: see {@link BindSite}.</li>
 * </ul>
 */
public final class Annotations implements ObjIntConsumer<Object> {


    private static final List<Policy> PLACEMENTS = new ArrayList<>();
    private static final List<BindSite> BINDS = new ArrayList<>();

    /** Per thread: the ids of the annotated calls in progress, innermost last. */
    private static final ThreadLocal<int[]> STACK = new ThreadLocal<>();
    /** Per thread: the last pool made on it, for fields whose value does not reveal its pool. */
    private static final ThreadLocal<WeakReference<Object>> LAST = new ThreadLocal<>();
    /** Per thread: the @Bind calls in progress, innermost last. */
    private static final ThreadLocal<ArrayList<BindSite.Held>> HELD = new ThreadLocal<>();

    private static volatile Placer placer;
    private static volatile Options options;

    public Annotations(Placer p, Options o) {
        placer = p;
        options = o;
    }

    static Placer placer() {
        return placer;
    }

    static Options options() {
        return options;
    }

    public static synchronized int registerPlacement(Policy p) {
        PLACEMENTS.add(p);
        return PLACEMENTS.size() - 1;
    }

    public static synchronized int registerBind(Policy p) {
        BINDS.add(new BindSite(p));
        return BINDS.size() - 1;
    }

    private static synchronized Policy placement(int id) {
        return id >= 0 && id < PLACEMENTS.size() ? PLACEMENTS.get(id) : null;
    }

    private static synchronized BindSite bindSite(int id) {
        return id >= 0 && id < BINDS.size() ? BINDS.get(id) : null;
    }

    /** The innermost @Placement in progress on this thread, or null. */
    public static Policy current() {
        int[] s = STACK.get();
        return s == null || s[0] == 0 ? null : placement(s[s[0]]);
    }

    /** The piece the innermost {@code @Bind} call in progress on this thread holds, or null. */
    public static CpuSet currentPiece() {
        ArrayList<BindSite.Held> held = HELD.get();
        if (held == null) return null;
        for (int i = held.size() - 1; i >= 0; i--) if (held.get(i).cpus() != null) return held.get(i).cpus();
        return null;
    }

    /** A pool was made on this thread (for annotated fields). */
    public static void created(Object pool) {
        LAST.set(new WeakReference<>(pool));
    }

    @Override
    public void accept(Object o, int code) {
        try {
            int id = code >>> QvHooks.OP_SHIFT;
            switch (code & QvHooks.OP_MASK) {
                case QvHooks.PLACEMENT_ENTER -> push(id);
                case QvHooks.PLACEMENT_EXIT -> pop(id);
                case QvHooks.BIND_ENTER -> bindEnter(id);
                case QvHooks.BIND_EXIT -> bindExit(id);
                case QvHooks.FIELD_SET -> fieldSet(o, id);
                default -> {
                }
            }
        } catch (Throwable t) {
            try {
                Log.once("ann:" + t.getClass().getName(), "internal error in an annotation hook (" + t + "); ignored");
            } catch (Throwable ignored) {
                // nothing may escape
            }
        }
    }

    private static void push(int id) {
        int[] s = STACK.get();
        if (s == null) {
            s = new int[8];
            STACK.set(s);
        }
        if (s[0] + 1 >= s.length) {
            s = Arrays.copyOf(s, s.length * 2);
            STACK.set(s);
        }
        s[++s[0]] = id;
    }

    /** Pops down to the innermost entry with this id (entries above it were left by exceptions). */
    private static void pop(int id) {
        int[] s = STACK.get();
        if (s == null) return;
        for (int i = s[0]; i >= 1; i--) {
            if (s[i] == id) {
                s[0] = i - 1;
                return;
            }
        }
    }

    private static void fieldSet(Object value, int id) {
        Placer p = placer;
        Policy pol = placement(id);
        if (p == null || pol == null || value == null) return;
        Object pool = poolOf(value, 3);
        if (pool == null) {
            WeakReference<Object> last = LAST.get();
            pool = last == null ? null : last.get();
        }
        if (pool != null) p.annotate(pool, pol);
    }

    /** The ThreadPoolExecutor or ForkJoinPool behind an executor (Executors' wrappers, delegating executors). */
    static Object poolOf(Object v, int depth) {
        if (v instanceof ThreadPoolExecutor || v instanceof ForkJoinPool) return v;
        if (depth == 0 || !(v instanceof java.util.concurrent.Executor)) return null;
        for (Class<?> c = v.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) || !java.util.concurrent.Executor.class.isAssignableFrom(f.getType())
                        && f.getType() != Object.class) continue;
                try {
                    f.setAccessible(true);
                    Object inner = f.get(v);
                    if (inner != null && inner != v) {
                        Object pool = poolOf(inner, depth - 1);
                        if (pool != null) return pool;
                    }
                } catch (RuntimeException | IllegalAccessException e) {
                    // not open to us: fall back to the last pool made on this thread
                }
            }
        }
        return null;
    }

    private static void bindEnter(int id) {
        BindSite site = bindSite(id);
        ArrayList<BindSite.Held> held = HELD.get();
        if (held == null) {
            held = new ArrayList<>(4);
            HELD.set(held);
        }
        held.add(site == null ? new BindSite.Held(id, null, -1, null, null, false) : site.enter(id));
    }

    private static void bindExit(int id) {
        ArrayList<BindSite.Held> held = HELD.get();
        if (held == null) return;
        for (int i = held.size() - 1; i >= 0; i--) {
            if (held.get(i).id() == id) {
                // entries above it were left by exceptions: undo them too, innermost first
                for (int j = held.size() - 1; j >= i; j--) {
                    BindSite.Held h = held.remove(j);
                    if (h.site() != null) h.site().exit(h);
                }
                return;
            }
        }
    }

    /** The agent's environment, waiting for the background start-up like a starting worker does. */
    static Env env() {
        Placer p = placer;
        return p == null ? null : p.awaitEnv();
    }

    /** The instance the placer asks about pools made inside annotated calls. */
    public Annotated source() {
        return new Annotated() {
            @Override
            public Policy current() {
                return Annotations.current();
            }

            @Override
            public void created(Object pool) {
                Annotations.created(pool);
            }

            @Override
            public CpuSet piece() {
                return Annotations.currentPiece();
            }
        };
    }
}
