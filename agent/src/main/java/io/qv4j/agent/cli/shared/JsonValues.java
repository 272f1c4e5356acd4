package io.qv4j.agent.cli.shared;

import java.util.List;
import java.util.Map;

/** Parsed JSON ({@link io.qv4j.agent.report.JsonReader}) taken apart: what is not the shape expected reads as empty. */
public final class JsonValues {

    private JsonValues() {
    }

    /** {@code o} as an object, empty when it is not one. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> map(Object o) {
        return o instanceof Map ? (Map<String, Object>) o : Map.of();
    }

    /** {@code o} as an array, empty when it is not one. */
    @SuppressWarnings("unchecked")
    public static List<Object> list(Object o) {
        return o instanceof List ? (List<Object>) o : List.of();
    }
}
