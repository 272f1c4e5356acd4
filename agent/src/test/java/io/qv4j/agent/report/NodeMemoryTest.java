package io.qv4j.agent.report;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class NodeMemoryTest {

    /** A pinned pool of two workers on NUMA nodes 1 and 3. */
    static final String ON_NODES_1_AND_3 = """
            {"agent": {"jvmScope": "0-7"},
             "pools": [{"id": 1, "name": "app", "pinned": true,
               "scope": "2-3,6-7", "slots": [{"slot": 0, "cpuset": "2-3", "numa": [1], "thread": "app-1"},
                                           {"slot": 1, "cpuset": "6-7", "numa": [3], "thread": "app-2"}], "threads": []}]}
            """;

    @SuppressWarnings("unchecked")
    private static Map<String, Object> report(String json) {
        return (Map<String, Object>) JsonReader.parse(json);
    }

    @Test
    void byNodeListsEachNodeInOrderAndNothingWhereNumaMapsIsUnread() {
        assertEquals(List.of(Map.of("node", 0, "bytes", 3L), Map.of("node", 2, "bytes", 1L)), NodeMemory.of(Map.of(2, 1L, 0, 3L)));
        assertNull(NodeMemory.of(Map.of()));
    }

    @Test
    void theAdviceSaysWhereMostMemorySitsAwayFromEveryPinnedWorkerAndOnlyThen() {
        Map<String, Object> report = report(ON_NODES_1_AND_3);
        List<Object> away = NodeMemory.of(Map.of(0, 81L << 20, 1, 10L << 20, 3, 9L << 20));
        assertEquals("81 % of the JVM's memory is on node 0, where none of its pinned workers run (they run on nodes 1,3): "
                + "memory=bind or interleave places the workers' new pages, -XX:+UseNUMA the heap's", NodeMemory.advice(report, away));
        assertNull(NodeMemory.advice(report, NodeMemory.of(Map.of(0, 40L << 20, 1, 30L << 20, 3, 30L << 20))), "most of it beside the workers");
        assertNull(NodeMemory.advice(report, null), "no numa_maps");
        assertNull(NodeMemory.advice(report(ON_NODES_1_AND_3.replace("\"pinned\": true", "\"pinned\": false")), away), "no pinned worker's nodes known");
    }
}
