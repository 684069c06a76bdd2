package io.winlimit.breaker;

import java.time.Duration;

/**
 * The circuit breaker options of a limiter (clients/spec/breaker.json): it opens after
 * {@code failures} consecutive failures, for {@code open}, doubling on each failed probe up to
 * {@code maxOpen}. On by default. Immutable.
 */
public record BreakerOptions(boolean enabled, int failures, long openMs, long maxOpenMs) {
    public static final int DEFAULT_FAILURES = 3;
    public static final long DEFAULT_OPEN_MS = 1000;
    public static final long DEFAULT_MAX_OPEN_MS = 30_000;

    public BreakerOptions {
        if (failures < 1) {
            throw new IllegalArgumentException("failures must be an integer >= 1, not " + failures);
        }
        if (openMs < 1) {
            throw new IllegalArgumentException("open must be at least 1 ms, not " + openMs + " ms");
        }
        if (maxOpenMs < 1) {
            throw new IllegalArgumentException("maxOpen must be at least 1 ms, not " + maxOpenMs + " ms");
        }
        if (maxOpenMs < openMs) {
            throw new IllegalArgumentException("maxOpen (" + maxOpenMs + " ms) must be at least open (" + openMs + " ms)");
        }
    }

    /** The defaults: on, 3 failures, open 1 s, at most 30 s. */
    public static BreakerOptions defaults() {
        return new BreakerOptions(true, DEFAULT_FAILURES, DEFAULT_OPEN_MS, DEFAULT_MAX_OPEN_MS);
    }

    /** No breaker: every call is sent, whatever fails. */
    public static BreakerOptions disabled() {
        return new BreakerOptions(false, DEFAULT_FAILURES, DEFAULT_OPEN_MS, DEFAULT_MAX_OPEN_MS);
    }

    public BreakerOptions withFailures(int failures) {
        return new BreakerOptions(enabled, failures, openMs, maxOpenMs);
    }

    public BreakerOptions withOpen(Duration open) {
        return new BreakerOptions(enabled, failures, open.toMillis(), maxOpenMs);
    }

    public BreakerOptions withMaxOpen(Duration maxOpen) {
        return new BreakerOptions(enabled, failures, openMs, maxOpen.toMillis());
    }
}
