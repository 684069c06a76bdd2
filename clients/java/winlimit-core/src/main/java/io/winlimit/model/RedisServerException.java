package io.winlimit.model;

/** The server answered with an error; the message is its text, unchanged. */
public class RedisServerException extends WinlimitException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a message and its cause.
     *
     * @param message what failed
     * @param cause the client's or server's error, or null
     */
    public RedisServerException(String message, Throwable cause) {
        super(message, cause);
    }
}
