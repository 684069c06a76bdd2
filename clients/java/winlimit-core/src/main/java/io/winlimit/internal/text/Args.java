package io.winlimit.internal.text;

import java.time.Duration;

/** Checks of the arguments a user passes, before anything is sent. */
public final class Args {
    private Args() {}

    /**
     * A Duration as whole milliseconds; IllegalArgumentException for null or a fraction of one.
     *
     * @param what the argument's name, for the message
     * @param duration the duration
     * @return whole milliseconds
     * @throws IllegalArgumentException for null, a fraction of a millisecond or an overflow
     */
    public static long millis(String what, Duration duration) {
        if (duration == null) {
            throw new IllegalArgumentException(what + " must be a Duration, not null");
        }
        long ms;
        try {
            ms = duration.toMillis();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(what + " " + duration + " is too long", e);
        }
        // Whole milliseconds iff the nanosecond part is (it is never negative), read without
        // making a Duration to compare with on every call.
        if (duration.getNano() % 1_000_000 != 0) {
            throw new IllegalArgumentException(what + " must be a whole number of milliseconds, not " + duration);
        }
        return ms;
    }
}
