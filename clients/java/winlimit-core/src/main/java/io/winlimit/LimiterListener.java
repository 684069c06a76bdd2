package io.winlimit;

import io.winlimit.model.Decision;

/**
 * Told of every decision and every failed call of a limiter, e.g. to count them in metrics.
 * Called on the thread that completes the call; must not block or throw.
 */
public interface LimiterListener {
    /** A decision was made ({@code nanos}: how long Redis took; 0 for a cached one). */
    default void decided(String policy, Decision decision, long nanos) {}

    /** A call failed with {@code error}: Redis unavailable, or a server error. */
    default void failed(String policy, Throwable error) {}

    /** The circuit breaker of a server (cluster node) changed state. */
    default void breakerChanged(io.winlimit.breaker.CircuitBreaker breaker, io.winlimit.breaker.CircuitBreaker.Transition transition) {}

    /** Listens to nothing. */
    LimiterListener NONE = new LimiterListener() {};
}
