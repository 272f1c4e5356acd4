/**
 * The live platform: topology discovery (sysfs, OSHI, a file or a synthetic spec given as input)
 * and the api's {@code Platform} on the agent's binder. It may use binding, configuration, the
 * log, the topology readers and the api.
 */
package io.qv4j.agent.platform;
