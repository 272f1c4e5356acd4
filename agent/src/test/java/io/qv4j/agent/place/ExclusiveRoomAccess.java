package io.qv4j.agent.place;

/** For tests in other packages: the agent's list of the JVM's own threads. */
public final class ExclusiveRoomAccess {

    private ExclusiveRoomAccess() {
    }

    public static boolean vmThreadName(String name) {
        return ExclusiveRoom.vmThreadName(name);
    }
}
