/**
 * The agent's entry point ({@code premain}/{@code agentmain}): reads the options, builds the
 * platform, the placer and the binder, and installs the hooks. The top layer: it may use every
 * package of the agent; none may use it.
 */
package io.qv4j.agent;
