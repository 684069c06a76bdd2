package io.winlimit.model;

/** Redis gave no answer: the connection failed or closed, or no reply came within the
 * limiter's timeout. The call is never sent again by winlimit: it was counted at most once. */
public class RedisUnavailableException extends WinlimitException {
    private static final long serialVersionUID = 1L;

    public RedisUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
