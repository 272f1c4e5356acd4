package io.qv4j.agent;

import io.qv4j.agent.cli.Main;
import io.qv4j.agent.launch.AgentLauncher;

import java.lang.instrument.Instrumentation;

/** What the launcher calls, registered with it when this class is initialized in the agent's loader. */
final class Entry implements AgentLauncher.Entry {

    static {
        AgentLauncher.register(new Entry());
    }

    private Entry() {
    }

    @Override
    public void premain(String args, Instrumentation inst) {
        QvAgent.premain(args, inst);
    }

    @Override
    public void agentmain(String args, Instrumentation inst) {
        QvAgent.agentmain(args, inst);
    }

    @Override
    public void main(String[] args) throws Exception {
        Main.main(args);
    }
}
