package io.qv4j.testapps;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A pool class whose constructor calls a hook, as the agent's rewritten constructors do, made by
 * "application" code in three ways: directly, by reflection and through a constructor reference
 * (a lambda's hidden frame). Outside the agent's packages, so the maker is the pool's creator.
 */
public final class HookedPools {

    /** What the constructor calls with the new pool. */
    public static volatile Consumer<Object> hook;

    /** The pool class. */
    public static final class HookedPool extends ThreadPoolExecutor {
        public HookedPool() {
            super(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
            hook.accept(this);
        }
    }

    private HookedPools() {
    }

    public static void makeDirectly() {
        new HookedPool().shutdown();
    }

    public static void makeByReflection() {
        try {
            HookedPool.class.getDeclaredConstructor().newInstance().shutdown();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    public static void makeThroughAConstructorReference() {
        Supplier<HookedPool> make = HookedPool::new;
        make.get().shutdown();
    }
}
