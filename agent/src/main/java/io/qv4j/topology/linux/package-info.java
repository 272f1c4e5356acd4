/**
 * The Linux topology reader: sysfs and procfs, live or under a file-system root, including the
 * allowed set from the affinity or the cgroup cpuset, and CPU quotas. Part of the agent's
 * platform, it uses the topology model and the JDK only, nothing of the agent.
 */
package io.qv4j.topology.linux;
