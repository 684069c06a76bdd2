package io.winlimit.breaker;

import java.time.Duration;
import java.util.Objects;

/**
 * The circuit breaker options of a limiter (clients/spec/breaker.json): it opens after
 * {@code failures} consecutive failures, for {@code open}, doubling on each failed probe up to
 * {@code maxOpen}. On by default. Immutable.
 *
 * <p>{@code maxOpen} left unset is the larger of {@link #DEFAULT_MAX_OPEN_MS} and {@code open}, so
 * a long open period given alone is its own cap; set, it must be at least {@code open}.
 */
public final class BreakerOptions {
    public static final int DEFAULT_FAILURES = 3;
    public static final long DEFAULT_OPEN_MS = 1000;
    public static final long DEFAULT_MAX_OPEN_MS = 30_000;

    private final boolean enabled;
    private final int failures;
    private final long openMs;
    /** 0: unset, the larger of the default and openMs. */
    private final long givenMaxOpenMs;

    private BreakerOptions(boolean enabled, int failures, long openMs, long givenMaxOpenMs, boolean maxOpenGiven) {
        if (failures < 1) {
            throw new IllegalArgumentException("failures must be an integer >= 1, not " + failures);
        }
        if (openMs < 1) {
            throw new IllegalArgumentException("open must be at least 1 ms, not " + openMs + " ms");
        }
        if (maxOpenGiven && givenMaxOpenMs < 1) {
            throw new IllegalArgumentException("maxOpen must be at least 1 ms, not " + givenMaxOpenMs + " ms");
        }
        if (maxOpenGiven && givenMaxOpenMs < openMs) {
            throw new IllegalArgumentException("maxOpen (" + givenMaxOpenMs + " ms) must be at least open (" + openMs + " ms)");
        }
        this.enabled = enabled;
        this.failures = failures;
        this.openMs = openMs;
        this.givenMaxOpenMs = maxOpenGiven ? givenMaxOpenMs : 0;
    }

    /** Every option given: on or off, the failures that open it, the open period and its cap. */
    public BreakerOptions(boolean enabled, int failures, long openMs, long maxOpenMs) {
        this(enabled, failures, openMs, maxOpenMs, true);
    }

    /** The defaults: on, 3 failures, open 1 s, at most 30 s. */
    public static BreakerOptions defaults() {
        return new BreakerOptions(true, DEFAULT_FAILURES, DEFAULT_OPEN_MS, 0, false);
    }

    /** No breaker: every call is sent, whatever fails. */
    public static BreakerOptions disabled() {
        return defaults().withEnabled(false);
    }

    public boolean enabled() {
        return enabled;
    }

    public int failures() {
        return failures;
    }

    public long openMs() {
        return openMs;
    }

    /** The cap of the open period: as given, or unset the larger of the default and {@link #openMs}. */
    public long maxOpenMs() {
        return givenMaxOpenMs != 0 ? givenMaxOpenMs : Math.max(DEFAULT_MAX_OPEN_MS, openMs);
    }

    /** Whether {@link #maxOpenMs} was given, rather than following {@link #openMs}. */
    public boolean maxOpenGiven() {
        return givenMaxOpenMs != 0;
    }

    public BreakerOptions withEnabled(boolean enabled) {
        return new BreakerOptions(enabled, failures, openMs, givenMaxOpenMs, maxOpenGiven());
    }

    public BreakerOptions withFailures(int failures) {
        return new BreakerOptions(enabled, failures, openMs, givenMaxOpenMs, maxOpenGiven());
    }

    public BreakerOptions withOpen(Duration open) {
        return new BreakerOptions(enabled, failures, open.toMillis(), givenMaxOpenMs, maxOpenGiven());
    }

    public BreakerOptions withMaxOpen(Duration maxOpen) {
        return new BreakerOptions(enabled, failures, openMs, maxOpen.toMillis(), true);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof BreakerOptions o && enabled == o.enabled && failures == o.failures
                && openMs == o.openMs && givenMaxOpenMs == o.givenMaxOpenMs;
    }

    @Override
    public int hashCode() {
        return Objects.hash(enabled, failures, openMs, givenMaxOpenMs);
    }

    @Override
    public String toString() {
        return "BreakerOptions[enabled=" + enabled + ", failures=" + failures + ", openMs=" + openMs
                + ", maxOpenMs=" + maxOpenMs() + (maxOpenGiven() ? "" : " (unset)") + "]";
    }
}
