/**
 * {@code attach}: loads this jar into a running JVM with the options given, then prints the
 * target's own answer as {@code status} does.
 */
package io.qv4j.agent.cli.attach;
