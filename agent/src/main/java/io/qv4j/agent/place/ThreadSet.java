package io.qv4j.agent.place;

import io.qv4j.agent.config.Policy;
import io.qv4j.agent.config.Rule;

/**
 * A set of plain platform threads that are the tasks of one split, as a rule or a recognizer found
 * it when one of them started: registered in the {@link PoolRegistry} like a pool, under a
 * {@link GroupKey} made from {@code key}, so that planning, claims and the report treat it as one.
 *
 * @param key    what identifies the group (the recognizer or rule and the threads' name prefix)
 * @param name   the group's name in the report and the log
 * @param type   what the threads are (their pool's or their own class), for the report
 * @param tasks  T: how many threads the group has; 0 = not known (one per piece of the split); -1 = unbounded (pool scope)
 * @param slot   the slot this thread asks for (from its name's trailing number), or -1
 * @param rule   the rule that named it, or null
 * @param policy the rule's policy, or null (the options)
 * @param reason why the group is pinned, for the report
 */
record ThreadSet(String key, String name, String type, int tasks, int slot, Rule rule, Policy policy, String reason) {
}
