package io.qv4j.agent.it;

import io.qv4j.agent.report.JsonReader;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The worked examples of DESIGN.md §4.1 and §4.3 through the real jar's {@code plan --format json},
 * on {@code package:2 core:4 pu:2} (core c holds PUs 2c and 2c+1).
 */
class PlanCliIT {

    private static final String MACHINE = "package:2 core:4 pu:2";

    @ParameterizedTest(name = "{0}: {1} {2} color={3} T={4}")
    @CsvSource(delimiter = ';', value = {
            "regular split, extras to the earliest pieces; --split; 3; auto; 3; 0-5 6-11 12-15",
            "regular split on the package boundary; --split; 2; auto; 2; 0-7 8-15",
            "regular split in PUs when pieces outnumber cores; --split; 12; auto; 12; 0-1 2-3 4-5 6-7 8 9 10 11 12 13 14 15",
            "spread T<=P, subtrees share tasks; --split-at; core; spread; 3; 0-1 4-5 8-9",
            "spread T<=P, earlier subtrees take the extra; --split-at; core; spread; 5; 0-1 2-3 4-5 8-9 12-13",
            "spread two tasks over two packages; --split-at; core; spread; 2; 0-1 8-9",
            "packed T<=P; --split-at; core; packed; 3; 0-1 2-3 4-5",
            "packed T>P fills pieces in blocks; --split-at; core; packed; 10; 0-1 0-1 2-3 2-3 4-5 6-7 8-9 10-11 12-13 14-15",
            "auto gives each task a block of pieces; --split-at; core; auto; 3; 0-5 6-11 12-15",
            "spread T>P is cyclic; --split-at; package; spread; 4; 0-7 8-15 0-7 8-15",
            "packed T>P over packages; --split-at; package; packed; 4; 0-7 0-7 8-15 8-15",
            "ordinal color puts every task on that piece; --split-at; package; 1; 2; 8-15 8-15",
    })
    void workedExamplesOfTheDesign(String rule, String how, String what, String color, int tasks, String expected) throws Exception {
        Jvm.Result r = Jvm.cli(Jvm.javas().get(0), List.of(), "plan", "--input", MACHINE, how, what,
                "--color", color, "--tasks", String.valueOf(tasks), "--format", "json");
        assertEquals(0, r.exitCode(), rule + ": " + r.stderr());
        Map<?, ?> plan = (Map<?, ?>) JsonReader.parse(r.stdout());
        List<?> taskList = (List<?>) plan.get("tasks");
        List<String> cpus = taskList.stream().map(t -> (String) ((Map<?, ?>) t).get("cpus")).toList();
        assertEquals(Arrays.asList(expected.split(" ")), cpus, rule);
        for (int i = 0; i < taskList.size(); i++) assertEquals((long) i, ((Map<?, ?>) taskList.get(i)).get("task"));
        assertTrue(plan.get("pieces") instanceof List<?>, "pieces listed");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
            "zero pieces; --split 0 --color auto --tasks 2; 0",
            "more pieces than PUs; --split 17 --color auto --tasks 2; 17",
            "ordinal beyond the pieces; --split-at package --color 2 --tasks 1; 2",
            "unknown type; --split-at socket --color auto --tasks 1; socket",
            "no tasks; --split 2 --color auto --tasks 0; --tasks",
            "bad color; --split 2 --color sideways --tasks 1; sideways",
            "both split kinds; --split 2 --split-at core --color auto --tasks 1; --split",
    })
    void badArgumentsAreOneLineAndExitCodeTwo(String what, String args, String named) throws Exception {
        List<String> argv = new java.util.ArrayList<>(List.of("plan", "--input", MACHINE));
        argv.addAll(Arrays.asList(args.split(" ")));
        Jvm.Result r = Jvm.cli(Jvm.javas().get(0), List.of(), argv.toArray(String[]::new));
        assertEquals(2, r.exitCode(), what + ": " + r.stdout() + r.stderr());
        assertEquals(1, r.stderr().strip().lines().count(), what + ": " + r.stderr());
        assertTrue(r.stderr().contains(named), what + ": message should name '" + named + "': " + r.stderr());
    }
}
