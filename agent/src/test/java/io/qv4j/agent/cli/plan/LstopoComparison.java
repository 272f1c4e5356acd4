package io.qv4j.agent.cli.plan;

import io.qv4j.agent.report.JsonReader;

import javax.tools.ToolProvider;
import java.io.File;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A live machine's {@code topology --format json} against hwloc's reading of the same machine
 * ({@code lstopo --of xml}) by the fixtures' rule: {@code scripts/LstopoSummary.java}, which shares
 * no code with qv4j, summarizes the XML, and every key the fixtures compare must agree.
 */
public final class LstopoComparison {

    private static Method summarize;

    private LstopoComparison() {
    }

    /** The keys that differ, each as {@code key: lstopo X, topology Y}; empty when they agree. */
    public static List<String> differences(Path lstopoXml, String topologyJson) throws Exception {
        Map<?, ?> expected = (Map<?, ?>) JsonReader.parse((String) summarizer().invoke(null, lstopoXml.toFile()));
        Map<?, ?> actual = (Map<?, ?>) JsonReader.parse(topologyJson);
        List<String> out = new ArrayList<>();
        for (String key : TopologyFixtureTest.KEYS) {
            Object a = TopologyFixtureTest.onExpectedKeys(expected.get(key), actual.get(key));
            if (!expected.get(key).equals(a)) out.add(key + ": lstopo " + expected.get(key) + ", topology " + actual.get(key));
        }
        return out;
    }

    /** The tool compiled once per JVM, in-process. */
    private static synchronized Method summarizer() throws Exception {
        if (summarize == null) {
            Path classes = Files.createTempDirectory("lstopo-summary");
            int rc = ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(), LstopoSummaryTest.TOOL.toString());
            if (rc != 0) throw new IllegalStateException("javac " + LstopoSummaryTest.TOOL + ": exit " + rc);
            ClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, null);
            summarize = loader.loadClass("LstopoSummary").getMethod("summarize", File.class);
        }
        return summarize;
    }
}
