/**
 * What application code uses: scopes, splits and task groups ({@code Scope}, {@code Split},
 * {@code TaskGroup}), the {@code @Placement} and {@code @Bind} annotations, {@code QvExecutors},
 * work partitions, and the small {@code Platform} SPI the agent (or a test) plugs in. It may use
 * the engine ({@code io.qv4j.split}, {@code io.qv4j.partition}) and the topology model; nothing
 * beyond the JDK.
 */
package io.qv4j.api;
