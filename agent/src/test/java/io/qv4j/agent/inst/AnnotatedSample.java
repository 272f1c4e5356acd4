package io.qv4j.agent.inst;

import io.qv4j.api.Bind;
import io.qv4j.api.Color;
import io.qv4j.api.Placement;
import io.qv4j.topology.HwType;

import java.util.concurrent.Executor;

/** Input of the annotation transformer tests: annotated methods and fields, and plain ones. */
public class AnnotatedSample {

    @Placement(split = 2)
    Executor field;
    @Placement(color = Color.PACKED)
    static Executor shared;
    Executor plain;

    @Placement(splitAt = HwType.CORE, color = Color.PACKED)
    public int placed(int x) {
        if (x < 0) throw new IllegalArgumentException("negative");
        return x + 1;
    }

    @Bind(splitAt = HwType.PU, ordinal = 0)
    public long bound(long a, double b, String s) {
        return s == null ? a : a + (long) b;
    }

    public int unannotated(int x) {
        return x * 2;
    }

    public void assign(Executor e) {
        field = e;
        shared = e;
        plain = e;
    }

    /** A whole class under one annotation: its constructors and methods, static ones too. */
    @Placement(splitAt = HwType.NUMANODE)
    public static class Whole {

        public Whole() {
        }

        public void work() {
        }

        public static void helper() {
        }
    }

    /** Mentions the api but carries none of its annotations. */
    public static class NoAnnotation {

        public Color color() {
            return Color.SPREAD;
        }
    }
}
