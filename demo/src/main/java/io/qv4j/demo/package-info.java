/** Demo workloads and JMH benchmarks for qv4j. */
package io.qv4j.demo;
