package io.qv4j.agent.inst;

/**
 * A static method of the boot hook class that a transformer inserts calls to: its name and its
 * descriptor. Each transformer lists the ones it can emit, so a test can hold them against the
 * hook class.
 */
public record HookMethod(String name, String descriptor) {
}
