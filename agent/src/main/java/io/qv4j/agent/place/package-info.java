/**
 * Placement: the pools and workers the hooks report, which of them to pin, the pieces their
 * policy cuts from the JVM's scope, slots, and rebalancing. It may use binding, node, platform,
 * configuration, the log and the api; the annotations and the report sit above it.
 */
package io.qv4j.agent.place;
