package io.winlimit.model;

/** The call was not sent: the limiter's circuit breaker is open after Redis failed, and the
 * limiter has no fallback. A {@link RedisUnavailableException}, so code that handles Redis
 * being down handles this too. */
public class BreakerOpenException extends RedisUnavailableException {
    private static final long serialVersionUID = 1L;
    /** How long the breaker stays open from when this was thrown, in ms. */
    private final long retryInMs;

    /**
     * The exception of a call refused while the breaker is open.
     *
     * @param limiter the limiter's name
     * @param node the server whose breaker is open, or empty (a limiter of one server)
     * @param retryInMs how long the breaker stays open from now, in ms
     */
    public BreakerOpenException(String limiter, String node, long retryInMs) {
        super("winlimit: the circuit breaker of limiter \"" + limiter + "\"" + (node.isEmpty() ? "" : " for node " + node)
                + " is open after Redis failed; the call was not sent (next probe in " + retryInMs + " ms)", null);
        this.retryInMs = retryInMs;
    }

    /**
     * How long the breaker stays open from when this was thrown.
     *
     * @return milliseconds, 0 or more
     */
    public long retryInMs() {
        return retryInMs;
    }
}
