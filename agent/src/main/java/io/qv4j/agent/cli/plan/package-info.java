/**
 * The engine for humans, without running JVMs: {@code topology} (the machine as text or JSON),
 * {@code plan} (which PUs each task gets; text, JSON or SVG) and {@code partition} (weights cut
 * into parts). Its drawings of a machine ({@code TopologyText}, {@code PlanSvg}) are also what
 * {@code status} draws on.
 */
package io.qv4j.agent.cli.plan;
