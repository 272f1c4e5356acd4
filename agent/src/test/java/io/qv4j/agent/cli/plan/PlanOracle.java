package io.qv4j.agent.cli.plan;

import io.qv4j.agent.cli.Main;
import io.qv4j.agent.report.JsonReader;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code plan} command as the integration tests' oracle, run in the test's own JVM (a
 * hundred forked {@code java -jar} runs would cost minutes): what each task of a policy gets on a
 * machine, the shared tasks with the pool's scope, as {@code plan --format json} prints it.
 */
public final class PlanOracle {

    private PlanOracle() {
    }

    /**
     * Each task's cpus for {@code plan --input INPUT --split-at SPLIT_AT --color COLOR --tasks TASKS};
     * INPUT null: the live machine, inside this JVM's allowed set.
     */
    @SuppressWarnings("unchecked")
    public static List<String> cpus(String input, String splitAt, String color, int tasks) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        List<String> args = new ArrayList<>(List.of("plan", "--split-at", splitAt, "--color", color, "--tasks", Integer.toString(tasks), "--format", "json"));
        if (input != null) args.addAll(1, List.of("--input", input));
        String[] argv = args.toArray(new String[0]);
        int code = Main.run(argv, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        if (code != 0) throw new IllegalStateException("plan " + String.join(" ", argv) + ": exit " + code + ": " + err.toString(StandardCharsets.UTF_8));
        List<String> cpus = new ArrayList<>();
        Map<String, Object> plan = (Map<String, Object>) JsonReader.parse(out.toString(StandardCharsets.UTF_8));
        for (Object t : (List<Object>) plan.get("tasks")) cpus.add((String) ((Map<String, Object>) t).get("cpus"));
        return cpus;
    }

    /** How many pieces {@code --split-at SPLIT_AT} makes of the machine {@code input}. */
    @SuppressWarnings("unchecked")
    public static int pieces(String input, String splitAt) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        String[] argv = {"plan", "--input", input, "--split-at", splitAt, "--tasks", "1", "--format", "json"};
        int code = Main.run(argv, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        if (code != 0) throw new IllegalStateException("plan " + String.join(" ", argv) + ": exit " + code + ": " + err.toString(StandardCharsets.UTF_8));
        return ((List<Object>) ((Map<String, Object>) JsonReader.parse(out.toString(StandardCharsets.UTF_8))).get("pieces")).size();
    }
}
