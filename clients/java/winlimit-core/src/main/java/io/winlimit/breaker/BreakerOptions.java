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
    /** Consecutive failures that open the breaker by default. */
    public static final int DEFAULT_FAILURES = 3;
    /** The first open period by default, in milliseconds. */
    public static final long DEFAULT_OPEN_MS = 1000;
    /** The longest open period by default, in milliseconds. */
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

    /**
     * Every option given: on or off, the failures that open it, the open period and its cap.
     *
     * @param enabled whether the breaker is on
     * @param failures the consecutive failures that open it, at least 1
     * @param openMs the first open period, in milliseconds, at least 1
     * @param maxOpenMs the open period's cap, in milliseconds, at least {@code openMs}
     */
    public BreakerOptions(boolean enabled, int failures, long openMs, long maxOpenMs) {
        this(enabled, failures, openMs, maxOpenMs, true);
    }

    /**
     * The defaults: on, 3 failures, open 1 s, at most 30 s.
     *
     * @return the default options
     */
    public static BreakerOptions defaults() {
        return new BreakerOptions(true, DEFAULT_FAILURES, DEFAULT_OPEN_MS, 0, false);
    }

    /**
     * No breaker: every call is sent, whatever fails.
     *
     * @return the defaults, switched off
     */
    public static BreakerOptions disabled() {
        return defaults().withEnabled(false);
    }

    /**
     * The breaker's enabled option.
     *
     * @return whether the breaker is on
     */
    public boolean enabled() {
        return enabled;
    }

    /**
     * The breaker's failures option.
     *
     * @return the consecutive failures that open the breaker
     */
    public int failures() {
        return failures;
    }

    /**
     * The breaker's openMs option.
     *
     * @return the first open period, in milliseconds
     */
    public long openMs() {
        return openMs;
    }

    /**
     * The cap of the open period: as given, or unset the larger of the default and {@link #openMs}.
     *
     * @return the cap, in milliseconds
     */
    public long maxOpenMs() {
        return givenMaxOpenMs != 0 ? givenMaxOpenMs : Math.max(DEFAULT_MAX_OPEN_MS, openMs);
    }

    /**
     * Whether {@link #maxOpenMs} was given, rather than following {@link #openMs}.
     *
     * @return true if the cap was given
     */
    public boolean maxOpenGiven() {
        return givenMaxOpenMs != 0;
    }

    /**
     * A copy with one option changed.
     *
     * @param enabled whether the breaker is on
     * @return the copy
     */
    public BreakerOptions withEnabled(boolean enabled) {
        return new BreakerOptions(enabled, failures, openMs, givenMaxOpenMs, maxOpenGiven());
    }

    /**
     * A copy with one option changed.
     *
     * @param failures the consecutive failures that open it, at least 1
     * @return the copy
     */
    public BreakerOptions withFailures(int failures) {
        return new BreakerOptions(enabled, failures, openMs, givenMaxOpenMs, maxOpenGiven());
    }

    /**
     * A copy with one option changed.
     *
     * @param open the first open period, at least 1 ms
     * @return the copy
     */
    public BreakerOptions withOpen(Duration open) {
        return new BreakerOptions(enabled, failures, open.toMillis(), givenMaxOpenMs, maxOpenGiven());
    }

    /**
     * A copy with one option changed.
     *
     * @param maxOpen the open period's cap, at least the open period
     * @return the copy
     */
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
