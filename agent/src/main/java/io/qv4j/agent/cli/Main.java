package io.qv4j.agent.cli;

public final class Main {
    public static void main(String[] args) {
        System.out.println("qv4j");
    }
}
