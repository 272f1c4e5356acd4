/**
 * What the agent reports: the JSON writer behind the placement report and the CLI's JSON output.
 * It may use placement and the layers below it; instrumentation, the CLI and the entry point use
 * it.
 */
package io.qv4j.agent.report;
