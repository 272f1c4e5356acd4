package io.qv4j.agent.it;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Keeps the shading honest: the jar carries only our classes, relocated dependencies and JNA. */
class AgentJarIT {

    private static final Pattern ALLOWED = Pattern.compile(
            "(META-INF/versions/\\d+/)?(io/qv4j/.*|com/sun/jna/.*)");

    @Test
    void everyClassIsOursRelocatedOrJna() throws Exception {
        List<String> strays = new ArrayList<>();
        try (JarFile jar = new JarFile(Jvm.agentJar().toFile())) {
            for (JarEntry e : java.util.Collections.list(jar.entries())) {
                if (e.getName().endsWith(".class") && !ALLOWED.matcher(e.getName()).matches()) strays.add(e.getName());
            }
        }
        assertTrue(strays.isEmpty(), "classes outside io.qv4j, io.qv4j.shaded and JNA: " + strays.subList(0, Math.min(20, strays.size())));
    }

    @Test
    void manifestMakesItAnAgentAndACommand() throws Exception {
        try (JarFile jar = new JarFile(Jvm.agentJar().toFile())) {
            Attributes a = jar.getManifest().getMainAttributes();
            assertEquals("io.qv4j.agent.QvAgent", a.getValue("Premain-Class"));
            assertEquals("io.qv4j.agent.QvAgent", a.getValue("Agent-Class"));
            assertEquals("io.qv4j.agent.cli.Main", a.getValue("Main-Class"));
            assertEquals("true", a.getValue("Multi-Release"));
            assertEquals("true", a.getValue("Can-Retransform-Classes"));
        }
    }
}
