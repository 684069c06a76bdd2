package io.winlimit.spring.boot;

import io.winlimit.model.Decision;

/**
 * What the web limiting counts: each request's decision by policy and outcome, and the time of
 * each call to Redis. The Micrometer implementation names its meters as the other winlimit
 * clients name their Prometheus metrics; no key is ever a tag.
 */
public interface WinlimitMeters {

    /** A decision on a request of {@code policy}; {@code shadowRejected}: a rejection shadow mode let through. */
    void decided(String policy, Decision decision, boolean shadowRejected, long nanos);

    /** A check of {@code policy} that got no decision: Redis failed or gave no answer in time. */
    void failed(String policy);

    /** The limiter's circuit breaker for {@code node} moved {@code to} a state (closed,
     * half_open, open) for {@code cause}; {@code state} is 0 closed, 1 half-open, 2 open. */
    default void breakerChanged(String limiter, String node, int state, String to, String cause) {}

    /** Counts nothing. */
    WinlimitMeters NONE = new WinlimitMeters() {
        @Override
        public void decided(String policy, Decision decision, boolean shadowRejected, long nanos) {}

        @Override
        public void failed(String policy) {}
    };
}
