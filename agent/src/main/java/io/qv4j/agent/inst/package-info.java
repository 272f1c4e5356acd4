/**
 * Instrumentation: defines the boot hook class, the transformers that insert calls to it into
 * the JDK's thread pools and into annotated application classes, and the dispatcher that turns
 * hook events into placer calls. It may use annotations, placement and the layers below; only the
 * entry point uses it.
 */
package io.qv4j.agent.inst;
