package io.qv4j.agent.inst;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.util.CheckClassAdapter;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** Helpers for the transformer tests: class bytes, verification, and the hook calls in a method. */
final class Bytecode {

    private Bytecode() {
    }

    /** A class file as the running JVM's class loader finds it (JDK classes from the run-time image). */
    static byte[] classBytes(String internalName) throws IOException {
        try (InputStream in = ClassLoader.getSystemResourceAsStream(internalName + ".class")) {
            assertNotNull(in, internalName + ".class not found");
            return in.readAllBytes();
        }
    }

    /** Verifies the bytes with ASM's data-flow verifier; fails with its report, if any. */
    static void assertVerifies(byte[] bytes, ClassLoader loader) {
        StringWriter report = new StringWriter();
        CheckClassAdapter.verify(new ClassReader(bytes), loader, false, new PrintWriter(report));
        assertEquals("", report.toString(), "verifier report");
    }

    static ClassNode tree(byte[] bytes) {
        ClassNode n = new ClassNode();
        new ClassReader(bytes).accept(n, 0);
        return n;
    }

    /** The calls in a method to static methods of {@code owner}, as {@code name+descriptor}, in order. */
    static List<String> callsTo(MethodNode m, String owner) {
        List<String> out = new ArrayList<>();
        for (AbstractInsnNode i : m.instructions) {
            if (i instanceof MethodInsnNode c && c.getOpcode() == Opcodes.INVOKESTATIC && c.owner.equals(owner)) out.add(c.name + c.desc);
        }
        return out;
    }

    /** The real instructions of a method (no labels, line numbers or frames). */
    static List<AbstractInsnNode> code(MethodNode m) {
        List<AbstractInsnNode> out = new ArrayList<>();
        for (AbstractInsnNode i : m.instructions) if (i.getOpcode() >= 0) out.add(i);
        return out;
    }

    /** How many instructions of a method have one of these opcodes. */
    static int count(MethodNode m, int... opcodes) {
        int n = 0;
        for (AbstractInsnNode i : m.instructions) {
            for (int op : opcodes) if (i.getOpcode() == op) n++;
        }
        return n;
    }
}
