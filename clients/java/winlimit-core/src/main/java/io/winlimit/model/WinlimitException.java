package io.winlimit.model;

/** Every error of winlimit's own Redis calls. Bad arguments are IllegalArgumentException,
 * thrown before anything is sent, and are not among these. */
public class WinlimitException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public WinlimitException(String message, Throwable cause) {
        super(message, cause);
    }
}
