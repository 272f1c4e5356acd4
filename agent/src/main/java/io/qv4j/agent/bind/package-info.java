/**
 * Binding a thread to a cpuset: the {@code Binder} interface, the JNI binding library and the
 * OpenHFT fallback. It may use configuration, the log and the topology model.
 */
package io.qv4j.agent.bind;
