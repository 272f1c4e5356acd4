package io.qv4j.agent.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent's code is kept off C2 once the application has started threads by the hundred, in
 * real JVMs (JDK 17 and 25): after 600 pools of 2 the JVM's compiler directives hold one entry,
 * for the agent's package only, excluded from C2; after 20 pools none, and none without tiers
 * (C2 the only compiler); the application runs as it would.
 */
class JitDirectiveIT {

    private static final String AGENT_ENTRY = "matching: io/qv4j/agent/*.*";

    private static Jvm.App churn(Path java, Path cache, int pools, int waitMillis) throws Exception {
        return churn(java, cache, List.of(), pools, waitMillis);
    }

    private static Jvm.App churn(Path java, Path cache, List<String> jvmArgs, int pools, int waitMillis) throws Exception {
        // the defaults, the neighbours watcher included (the harness turns it off unless asked)
        return Jvm.app(java, List.of("env", "XDG_CACHE_HOME=" + cache), jvmArgs, "verbose=true,neighbours=500ms", List.of("target/test-classes"),
                "io.qv4j.testapps.ChurnApp", Set.of(), String.valueOf(pools), String.valueOf(waitMillis));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> agent(Jvm.App app) {
        return (Map<String, Object>) app.report().get("agent");
    }

    @Test
    void manyThreadStartsAddOneDirectiveThatExcludesTheAgentsPackageFromC2(@TempDir Path cache) throws Exception {
        for (Path java : Jvm.javas()) {
            Jvm.App app = churn(java, cache, 300, 20_000);
            String out = app.result().stdout();
            assertEquals(0, app.result().exitCode(), app.result().toString());
            assertTrue(app.result().stderr().contains("kept off the C2 compiler after 500 thread starts: added"), java + ": " + app.result().stderr());
            assertEquals("added", agent(app).get("c2Directive"), "the report says so");
            int at = out.indexOf(AGENT_ENTRY);
            assertTrue(at >= 0, java + ": " + out);
            assertEquals(at, out.lastIndexOf(AGENT_ENTRY), "added once: " + out);
            String c2 = out.substring(out.indexOf("c2 directives:", at));
            assertTrue(c2.substring(0, c2.indexOf('\n', c2.indexOf("Exclude:"))).contains("Exclude:true"), out);
            // nothing of the application's is matched: besides the agent's, only the JVM's default
            assertEquals(2, out.split("Directive:", -1).length - 1, out);
            assertTrue(out.contains("Directive: (default)"), out);
            assertEquals(List.of("c2-directive.json"), Files.list(cache.resolve("qv4j")).map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("c2-")).toList());
        }
    }

    @Test
    void aJvmThatStartsFewThreadsKeepsTheJitsDefaults(@TempDir Path cache) throws Exception {
        for (Path java : Jvm.javas()) {
            Jvm.App app = churn(java, cache, 20, 300);
            assertEquals(0, app.result().exitCode(), app.result().toString());
            assertFalse(app.result().stdout().contains("io/qv4j"), java + ": " + app.result().stdout());
            assertFalse(app.result().stderr().contains("C2 compiler"), app.result().stderr());
            assertTrue(agent(app).containsKey("c2Directive"), app.report().toString());
            assertEquals(null, agent(app).get("c2Directive"), "not asked: the report's value is null");
        }
    }

    @Test
    void withoutTiersC2IsTheOnlyCompilerAndTheAgentsCodeIsLeftToIt(@TempDir Path cache) throws Exception {
        for (Path java : Jvm.javas()) {
            Jvm.App app = churn(java, cache, List.of("-XX:-TieredCompilation"), 300, 1000);
            assertEquals(0, app.result().exitCode(), app.result().toString());
            assertTrue(app.result().stderr().contains("not added (-XX:-TieredCompilation"), java + ": " + app.result().stderr());
            assertTrue(String.valueOf(agent(app).get("c2Directive")).startsWith("not added (-XX:-TieredCompilation"), app.report().toString());
            assertFalse(app.result().stdout().contains("io/qv4j"), app.result().stdout());
        }
    }
}
