package io.qv4j.api;

/**
 * A collective operation of a {@link TaskGroup} could not complete for this member because of
 * another member (it failed, aborted or never arrived) or because the group was already broken.
 * The message names the group, the operation and the rank or ranks at fault.
 */
public class TaskGroupException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public TaskGroupException(String message, Throwable cause) {
        super(message, cause);
    }
}
