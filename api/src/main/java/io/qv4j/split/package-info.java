/**
 * The split engine, internal to qv4j: cutting a scope's PUs into pieces along hardware
 * boundaries, and mapping tasks onto pieces by color and key. Pure and deterministic (no I/O, no
 * threads). It may use the topology model only; application code goes through {@code io.qv4j.api}.
 */
package io.qv4j.split;
