package io.qv4j.agent.config;

/** A bad option: an unknown key, a bad value or an unreadable file. The message is the whole story. */
public final class OptionException extends Exception {

    public OptionException(String message) {
        super(message, null, false, false);
    }
}
