package io.winlimit.model;

/** Redis gave no answer: the connection failed or closed, or no reply came within the
 * limiter's timeout. The call is never sent again by winlimit: it was counted at most once. */
public class RedisUnavailableException extends WinlimitException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a message and its cause.
     *
     * @param message what failed
     * @param cause the client's or server's error, or null
     */
    public RedisUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
