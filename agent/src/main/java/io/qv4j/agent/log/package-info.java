/**
 * The agent's own {@code qv: ...} lines on stderr, and the slf4j provider that keeps its bundled
 * libraries quiet. The ground layer: the JDK and slf4j's SPI, nothing else of the agent.
 */
package io.qv4j.agent.log;
