/**
 * The boot part: the one class instrumented JDK code calls, renamed into
 * {@code java.util.concurrent} and defined by the boot loader at run time. It uses JDK types only
 * and nothing from qv4j; the hook names, descriptors and codes it defines are the contract with
 * the transformers.
 */
package io.qv4j.agent.boot;
