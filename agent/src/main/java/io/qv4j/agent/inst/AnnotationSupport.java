package io.qv4j.agent.inst;

import io.qv4j.agent.annotations.Annotations;
import io.qv4j.agent.config.Options;
import io.qv4j.agent.place.Placer;

import java.lang.instrument.Instrumentation;

/** Turns on {@code @Placement}/{@code @Bind}: the handler in the boot hooks, then the transformer. */
public final class AnnotationSupport {

    private AnnotationSupport() {
    }

    public static AnnotationTransformer install(Instrumentation inst, Placer p, Options o) throws ReflectiveOperationException {
        Class<?> hooks = Class.forName(Boot.HOOKS, false, null);
        Annotations a = new Annotations(p, o);
        p.annotations(a.source());
        Boot.setHandler(hooks, "annotations", a);
        AnnotationTransformer t = new AnnotationTransformer(Boot.HOOKS.replace('.', '/'));
        // retransformable like the hook transformer: one JVMTI environment, so each class defined
        // after start costs one class-file-load call into Java, not two (DESIGN.md §6.1)
        inst.addTransformer(t, true);
        return t;
    }
}
