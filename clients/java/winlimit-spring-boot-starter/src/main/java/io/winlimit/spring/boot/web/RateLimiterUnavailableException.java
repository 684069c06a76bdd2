package io.winlimit.spring.boot.web;

/**
 * Redis failed or gave no answer in time, and the request's policy fails closed: answered 503
 * "rate limiter unavailable" by the starter (the reason is logged on the {@code winlimit}
 * logger, once per request).
 */
public class RateLimiterUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * The exception of a check that failed closed.
     *
     * @param policy the policy's name, for the message
     */
    public RateLimiterUnavailableException(String policy) {
        super("rate limiter unavailable (policy " + policy + ")");
    }
}
