package io.qv4j.agent.cli;

/** A bad command line: printed as one line, exit code 2. */
final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }
}
