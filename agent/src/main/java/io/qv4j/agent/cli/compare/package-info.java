/**
 * {@code compare}: runs a command without the agent, with its defaults and with each set of
 * options, in alternating rounds, and judges each arm against no agent (text, JSON or SVG).
 */
package io.qv4j.agent.cli.compare;
