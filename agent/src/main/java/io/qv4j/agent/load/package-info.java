/**
 * What runs on the CPUs, from {@code /proc}: how busy each PU has recently been with work that is
 * not this JVM's, and how long this JVM's threads waited for their PU (DESIGN.md §7.1); and, with
 * the same parsing, any process's threads for a tool that watches other JVMs ({@code TaskReader}).
 * Readings only, no decisions. It may use the configuration, the log and the topology model.
 */
package io.qv4j.agent.load;
