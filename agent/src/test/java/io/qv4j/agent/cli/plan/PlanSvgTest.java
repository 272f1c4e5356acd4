package io.qv4j.agent.cli.plan;

import io.qv4j.agent.cli.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code plan --format svg}: well-formed, every task's label drawn, small enough at 8192 PUs. */
class PlanSvgTest {

    @ParameterizedTest
    @CsvSource({
            "package:2 numa:2 core:64 pu:32, pu, 8192",
            "package:2 numa:2 core:64 pu:32, core, 256",
            "package:2 numa:2 core:64 pu:32, numa, 4",
            "package:2 numa:2 core:64 pu:32, core, 3",
            "package:2 numa:2 l3:1 core:4 pu:2 gpu:1 nic:1, core, 10",
            "package:1 core:2, pu, 5",
    })
    void wellFormedWithEveryTaskUnderOneMegabyte(String machine, String splitAt, int tasks) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"plan", "--input", machine, "--split-at", splitAt, "--color", "spread", "--tasks", Integer.toString(tasks),
                "--format", "svg"}, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        byte[] svg = out.toByteArray();
        assertTrue(svg.length < 1_000_000, svg.length + " bytes");
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(svg));
        assertEquals("svg", doc.getDocumentElement().getTagName());
        NodeList texts = doc.getElementsByTagName("text");
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < texts.getLength(); i++) {
            String[] words = texts.item(i).getTextContent().split(" ");
            String t = words[words.length - 1];
            if (!t.matches("t\\d+(,t\\d+)*")) continue;
            for (String w : t.split(",")) seen.add(Integer.parseInt(w.substring(1)));
        }
        String caption = texts.item(0).getTextContent();
        int colon = caption.indexOf("sharing the pool scope");
        if (colon >= 0) {
            for (String w : caption.substring(caption.indexOf(": ", colon) + 2).split(",")) seen.add(Integer.parseInt(w.substring(1)));
        }
        for (int i = 0; i < tasks; i++) assertTrue(seen.contains(i), "task " + i + " not drawn (" + seen.size() + " drawn)");
    }

    /** On a machine of three CPU kinds (the three-kind XML fixture) each core is drawn in its kind's class and titled with it. */
    @Test
    void theCoresOfAHybridMachineShowTheirKind() throws Exception {
        String xml = TopologyFixtureTest.fixtures().resolve("xml/24em64t-2n6c2t-pci-3kinds.xml").toString();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"plan", "--input", xml, "--split-at", "core", "--tasks", "2", "--format", "svg"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        assertEquals(0, code);
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(out.toByteArray()));
        NodeList rects = doc.getElementsByTagName("rect");
        Set<String> kinds = new HashSet<>();
        for (int i = 0; i < rects.getLength(); i++) {
            String cls = rects.item(i).getAttributes().getNamedItem("class").getTextContent();
            if (cls.startsWith("Core")) kinds.add(cls);
        }
        assertEquals(Set.of("Core k0", "Core k1", "Core k2"), kinds);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("Core L#0 kind 2"), "PUs 0 and 12, the fastest kind's");
    }
}
