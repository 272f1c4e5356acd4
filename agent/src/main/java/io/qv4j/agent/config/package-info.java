/**
 * The agent's configuration: options (agent arguments, {@code -Dqv.*}, environment, file),
 * rules and the placement policy they carry, each value checked with a message that names it. The
 * ground layer: it may use the log, the api and the topology model, nothing else of the agent.
 */
package io.qv4j.agent.config;
