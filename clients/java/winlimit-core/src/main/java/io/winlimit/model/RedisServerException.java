package io.winlimit.model;

/** The server answered with an error; the message is its text, unchanged. */
public class RedisServerException extends WinlimitException {
    private static final long serialVersionUID = 1L;

    public RedisServerException(String message, Throwable cause) {
        super(message, cause);
    }
}
