package io.winlimit.model;

/** The ACL user may not run a command the chosen backend needs; the message is the server's
 * text and names the rule to add. */
public class MissingPermissionException extends RedisServerException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a message and its cause.
     *
     * @param message what failed
     * @param cause the client's or server's error, or null
     */
    public MissingPermissionException(String message, Throwable cause) {
        super(message, cause);
    }
}
