package io.winlimit.model;

/** The call was not sent: the limiter's circuit breaker is open after Redis failed, and the
 * limiter has no fallback. A {@link RedisUnavailableException}, so code that handles Redis
 * being down handles this too. */
public class BreakerOpenException extends RedisUnavailableException {
    private static final long serialVersionUID = 1L;
    private final long retryInMs;

    public BreakerOpenException(String limiter, String node, long retryInMs) {
        super("winlimit: the circuit breaker of limiter \"" + limiter + "\"" + (node.isEmpty() ? "" : " for node " + node)
                + " is open after Redis failed; the call was not sent (next probe in " + retryInMs + " ms)", null);
        this.retryInMs = retryInMs;
    }

    /** How long the breaker stays open from when this was thrown. */
    public long retryInMs() {
        return retryInMs;
    }
}
