package io.winlimit.model;

/** Every error of winlimit's own Redis calls. Bad arguments are IllegalArgumentException,
 * thrown before anything is sent, and are not among these. */
public class WinlimitException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a message and its cause.
     *
     * @param message what failed
     * @param cause the client's or server's error, or null
     */
    public WinlimitException(String message, Throwable cause) {
        super(message, cause);
    }
}
