/**
 * The topology model at the bottom of the stack: an immutable tree of hardware objects typed by
 * {@code HwType}, cpusets, devices with their locality, and the synthetic-spec and hwloc XML
 * formats that build one. It uses the JDK only and knows nothing above it.
 */
package io.qv4j.topology;
