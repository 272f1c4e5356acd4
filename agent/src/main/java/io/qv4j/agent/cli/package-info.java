/**
 * The command line ({@code java -jar qv-agent.jar topology|plan|partition ...}): argument parsing
 * and the commands' text and JSON output. It may use the report, placement and the layers below
 * it, and the api; not the entry point.
 */
package io.qv4j.agent.cli;
