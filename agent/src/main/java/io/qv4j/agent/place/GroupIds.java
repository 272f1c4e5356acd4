package io.qv4j.agent.place;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link ThreadSet} key for each framework object that is a group (a Netty event-loop group, an
 * XNIO worker): by the object's identity (these classes keep identity equality), so two groups
 * whose threads have the same names stay two. A group that is collected drops out.
 */
final class GroupIds {

    private final String kind;
    private final Map<Object, String> ids = Collections.synchronizedMap(new WeakHashMap<>());
    private final AtomicInteger next = new AtomicInteger();

    /** @param kind the keys' first word, e.g. {@code netty} */
    GroupIds(String kind) {
        this.kind = kind;
    }

    /** {@code kind:CLASS#N}, the same for the same object. */
    String of(Object group) {
        return ids.computeIfAbsent(group, g -> kind + ":" + g.getClass().getName() + "#" + next.incrementAndGet());
    }
}
