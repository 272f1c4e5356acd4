package io.qv4j.topology;

/**
 * A topology input that cannot be read: a missing file, bad XML, a spec word we do not know.
 * The message names the input and what is wrong, in one line, for the user.
 */
public class TopologyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TopologyException(String message) {
        super(message);
    }

    public TopologyException(String message, Throwable cause) {
        super(message, cause);
    }
}
