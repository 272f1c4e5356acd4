/**
 * {@code status}: what the agent in each running JVM placed, read through the Attach API, as
 * text, JSON or SVG; and {@code --watch}, the same refreshed with each PU's load and each
 * worker's CPU and wait from {@code /proc} (through {@code io.qv4j.agent.load}).
 */
package io.qv4j.agent.cli.status;
