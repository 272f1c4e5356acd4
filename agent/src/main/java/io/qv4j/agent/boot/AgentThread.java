package io.qv4j.agent.boot;

/**
 * A thread of the agent's own ({@code qv-init}, {@code qv-status}, {@code qv-claims}, the exit
 * hooks, ...): a daemon that overrides {@code run()}, so it never enters {@code Thread.run()},
 * where the start and exit hooks sit. The agent's threads are thus never looked at as the
 * application's (no hook call, no read of their task, no recognizer), and they do not inherit the
 * creating thread's inheritable thread-locals, whose {@code childValue} is application code.
 */
public final class AgentThread extends Thread {

    private final Runnable task;

    public AgentThread(String name, Runnable task) {
        super(null, null, name, 0, false);
        this.task = task;
        setDaemon(true);
    }

    @Override
    public void run() {
        task.run();
    }
}
