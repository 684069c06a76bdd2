package io.winlimit.model;

import java.time.Duration;
import java.util.Objects;

/**
 * One quota policy as {@code RateLimit-Policy} announces it: {@code quota} units per window.
 *
 * <p>For the windows, a (window, limit) pair of the call. For GCRA, the bucket: {@code quota}
 * is its capacity ({@code BURST}) and the window the time it takes to refill from empty.
 */
public record Policy(String name, long quota, long windowMs) {
    /**
     * Checks the name.
     *
     * @throws NullPointerException if {@code name} is null
     *
     * @param name the policy's name in the header fields
     * @param quota the units per window
     * @param windowMs the window, in ms
     */
    public Policy {
        Objects.requireNonNull(name, "name");
    }

    /**
     * The window as a Duration.
     *
     * @return the window
     */
    public Duration window() {
        return Duration.ofMillis(windowMs);
    }
}
