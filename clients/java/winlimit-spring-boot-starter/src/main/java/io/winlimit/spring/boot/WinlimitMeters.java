package io.winlimit.spring.boot;

import io.winlimit.model.Decision;

/**
 * What the web limiting counts: each request's decision by policy and outcome, and the time of
 * each call to Redis. The Micrometer implementation names its meters as the other winlimit
 * clients name their Prometheus metrics; no key is ever a tag.
 */
public interface WinlimitMeters {

    /**
     * A decision on a request of {@code policy}; {@code shadowRejected}: a rejection shadow mode
     * let through.
     *
     * @param policy the policy's name
     * @param decision the decision
     * @param shadowRejected true for a rejection shadow mode let through
     * @param nanos how long the call to Redis took
     */
    void decided(String policy, Decision decision, boolean shadowRejected, long nanos);

    /**
     * A check of {@code policy} that got no decision: Redis failed or gave no answer in time.
     *
     * @param policy the policy's name
     */
    void failed(String policy);

    /**
     * The limiter's circuit breaker for {@code node} moved {@code to} a state (closed,
     * half_open, open) for {@code cause}; {@code state} is 0 closed, 1 half-open, 2 open.
     *
     * @param limiter the limiter's name
     * @param node the server (cluster node) of the breaker
     * @param state the new state as a number
     * @param to the new state's name
     * @param cause why it changed (failures, open_elapsed, probe_failed, probe_succeeded)
     */
    default void breakerChanged(String limiter, String node, int state, String to, String cause) {}

    /** Counts nothing. */
    WinlimitMeters NONE = new WinlimitMeters() {
        @Override
        public void decided(String policy, Decision decision, boolean shadowRejected, long nanos) {}

        @Override
        public void failed(String policy) {}
    };
}
