package io.qv4j.agent.place;

/**
 * The registry's key of a {@link ThreadSet}: one instance per group, held for the JVM's life by
 * {@link ThreadSets} (so the registry's weak reference to it stays set). Identity equality.
 */
final class GroupKey {

    final String key;

    GroupKey(String key) {
        this.key = key;
    }

    @Override
    public String toString() {
        return key;
    }
}
