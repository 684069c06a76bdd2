package io.winlimit.model;

/** Small text helpers for error messages. */
final class Texts {
    private Texts() {}

    /** `value` in double quotes, or "null". */
    static String quoted(Object value) {
        return value == null ? "null" : "\"" + value + "\"";
    }
}
