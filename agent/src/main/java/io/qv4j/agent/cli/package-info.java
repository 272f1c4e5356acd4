/**
 * The command line ({@code java -jar qv-agent.jar topology|plan|partition|status|attach|compare}):
 * {@link io.qv4j.agent.cli.Main} reads the command word and hands the rest to the command's
 * package. Dependencies point one way: this package uses the command packages; {@code attach}
 * uses {@code status}, which uses {@code plan}'s drawings; every one uses {@code shared}, which
 * uses none of them. The commands may use the report, placement and the layers below them, and
 * the api; not the entry point.
 */
package io.qv4j.agent.cli;
