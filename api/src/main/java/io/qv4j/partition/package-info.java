/**
 * Partitioning work given as non-negative {@code long} weights: the pure engine behind
 * {@link io.qv4j.api.Partition}. Nothing here knows about topologies or threads: a weight array
 * (or a row-major grid of weights) goes in, cut positions come out.
 *
 * <ul>
 *   <li>{@link io.qv4j.partition.Prefix}: checked prefix sums (negative weights and overflow are
 *       errors that name the index);</li>
 *   <li>{@link io.qv4j.partition.CutRule}: where one work-balanced cut goes, with its tie rules;</li>
 *   <li>{@link io.qv4j.partition.Linear}: the exact 1-D partition minimizing the heaviest part;</li>
 *   <li>{@link io.qv4j.partition.Sectioning}: ORB and ORB-H on 1-, 2-, 3-, … d-dimensional grids.</li>
 * </ul>
 *
 * <p>Kept apart from {@code io.qv4j.split}: that package cuts hardware scopes by topology
 * boundaries; this one cuts the application's index spaces by work.
 */
package io.qv4j.partition;
