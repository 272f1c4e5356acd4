/**
 * What several commands share, and nothing command-specific: the argument parser and its
 * {@code UsageException}, the terminal, this jar as an agent, other JVMs through the Attach API
 * ({@code Targets}), parsed JSON taken apart, SVG text. Uses no other command package.
 */
package io.qv4j.agent.cli.shared;
