package io.qv4j.agent.config;

/**
 * A bad option: an unknown key, a bad value or an unreadable file. The message is the whole story;
 * {@link #strict()} says whether the sources asked for {@code strict=true} (the JVM stops).
 */
public final class OptionException extends Exception {
    private static final long serialVersionUID = 1L;

    private final boolean strict;

    public OptionException(String message) {
        this(message, false);
    }

    private OptionException(String message, boolean strict) {
        super(message, null, false, false);
        this.strict = strict;
    }

    public boolean strict() {
        return strict;
    }

    OptionException strict(boolean s) {
        return s == strict ? this : new OptionException(getMessage(), s);
    }
}
