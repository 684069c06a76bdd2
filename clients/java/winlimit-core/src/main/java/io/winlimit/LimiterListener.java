package io.winlimit;

import io.winlimit.model.Decision;

/**
 * Told of every decision and every failed call of a limiter, e.g. to count them in metrics.
 * Called on the thread that completes the call; must not block or throw.
 */
public interface LimiterListener {
    /**
     * A decision was made, by Redis, the rejection cache or the fallback.
     *
     * @param policy the call's policy name
     * @param decision the decision
     * @param nanos how long Redis took; 0 for a cached one
     */
    default void decided(String policy, Decision decision, long nanos) {}

    /**
     * A call failed: Redis unavailable, timed out, or a server error.
     *
     * @param policy the call's policy name
     * @param error the failure, unwrapped (a WinlimitException when Redis failed)
     */
    default void failed(String policy, Throwable error) {}

    /**
     * The circuit breaker of a server (cluster node) changed state.
     *
     * @param breaker the breaker, naming its node
     * @param transition from which state to which
     */
    default void breakerChanged(io.winlimit.breaker.CircuitBreaker breaker, io.winlimit.breaker.CircuitBreaker.Transition transition) {}

    /** Listens to nothing. */
    LimiterListener NONE = new LimiterListener() {};
}
