/**
 * What {@code @Placement} and {@code @Bind} do at run time: the per-thread stack of annotated
 * calls, the policies of annotated fields, and the pieces {@code @Bind} callers hold. It may use
 * placement and the layers below it (binding, node, configuration, log, boot) and the api.
 */
package io.qv4j.agent.annotations;
