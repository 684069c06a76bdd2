package io.winlimit.model;

/** No answer from Redis within the limiter's timeout. The command was cancelled: if it was
 * still waiting in the client's queue (Lettuce buffers commands while disconnected), it is
 * never sent. */
public class RedisTimeoutException extends RedisUnavailableException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a message and its cause.
     *
     * @param message what failed
     * @param cause the client's or server's error, or null
     */
    public RedisTimeoutException(String message, Throwable cause) {
        super(message, cause);
    }
}
