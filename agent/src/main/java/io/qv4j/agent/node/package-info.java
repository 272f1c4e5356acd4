/**
 * The node: claims shared with other JVMs (and OpenHFT lock files), launcher local ranks and the
 * JVM's scope they give, and the affinity of the whole process. It may use binding,
 * configuration, the log, the topology readers and the api.
 */
package io.qv4j.agent.node;
