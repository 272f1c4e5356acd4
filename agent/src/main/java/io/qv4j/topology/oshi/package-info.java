/**
 * The OSHI topology reader: what sysfs does not say (processor names, memory, GPUs) and the
 * topology on systems without sysfs. Part of the agent's platform, it uses the topology model and
 * OSHI, nothing of the agent.
 */
package io.qv4j.topology.oshi;
