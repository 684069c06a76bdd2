package io.winlimit.model;

import io.winlimit.internal.text.Args;
import java.time.Duration;

/** One (window, limit) pair of a sliding-window call: {@code limit} units per {@code window}. */
public record Window(long windowMs, long limit) {

    /**
     * {@code limit} units per {@code window}, a whole number of milliseconds.
     *
     * @param window the window's length
     * @param limit the units the window holds
     * @return the pair
     * @throws IllegalArgumentException if {@code window} is null or not whole milliseconds
     */
    public static Window of(Duration window, long limit) {
        return new Window(Args.millis("window", window), limit);
    }

    /**
     * {@code limit} units per {@code windowMs} milliseconds.
     *
     * @param windowMs the window's length, in ms
     * @param limit the units the window holds
     * @return the pair
     */
    public static Window ofMillis(long windowMs, long limit) {
        return new Window(windowMs, limit);
    }
}
