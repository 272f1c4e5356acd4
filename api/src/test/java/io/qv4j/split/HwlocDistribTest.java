package io.qv4j.split;

import io.qv4j.api.Color;
import io.qv4j.topology.HwType;
import io.qv4j.api.Scope;
import io.qv4j.api.Split;
import io.qv4j.topology.Topology;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SPREAD with {@code T ≤ P} on uniform trees equals {@code hwloc-distrib --single --to core}
 * (DESIGN.md §4.3). The expectations were made by hwloc itself: scripts/gen-hwloc-distrib.sh.
 */
class HwlocDistribTest {

    static Stream<Arguments> cases() throws IOException {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(Objects.requireNonNull(
                HwlocDistribTest.class.getResourceAsStream("/hwloc-distrib/spread-single.tsv")), StandardCharsets.UTF_8))) {
            List<Arguments> out = r.lines().filter(l -> !l.isBlank() && !l.startsWith("#"))
                    .map(l -> l.split("\t"))
                    .map(f -> Arguments.of(f[0], Integer.parseInt(f[1]), f[2]))
                    .collect(Collectors.toList());
            assertTrue(out.size() >= 20, "at least 20 cases, found " + out.size());
            return out.stream();
        }
    }

    @ParameterizedTest(name = "{0}, T={1}")
    @MethodSource("cases")
    void spreadOverCoresEqualsHwlocDistribSingle(String spec, int tasks, String expectedCores) {
        Topology t = TestTopologies.synthetic(spec);
        Split cores = Scope.of(t).splitAt(HwType.CORE);
        String actual = cores.assign(tasks, Color.SPREAD).stream()
                .map(a -> String.valueOf(a.firstPiece()))
                .collect(Collectors.joining(","));
        assertEquals(expectedCores, actual);
    }
}
