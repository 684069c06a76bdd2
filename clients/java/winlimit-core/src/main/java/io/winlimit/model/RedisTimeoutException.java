package io.winlimit.model;

/** No answer from Redis within the limiter's timeout. The command was cancelled: if it was
 * still waiting in the client's queue (Lettuce buffers commands while disconnected), it is
 * never sent. */
public class RedisTimeoutException extends RedisUnavailableException {
    private static final long serialVersionUID = 1L;

    public RedisTimeoutException(String message, Throwable cause) {
        super(message, cause);
    }
}
