package io.qv4j.agent.cli.shared;

/** A bad command line: printed as one line, exit code 2. */
public final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }
}
