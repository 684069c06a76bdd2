package io.winlimit.spring.boot.internal.web;

import java.time.Duration;

/** No answer from Redis within {@code winlimit.timeout}. */
public class CheckTimedOutException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * The exception of a check that waited {@code timeout} in vain.
     *
     * @param timeout the timeout that passed
     */
    public CheckTimedOutException(Duration timeout) {
        super("no answer from Redis within " + timeout.toMillis() + " ms");
    }
}
