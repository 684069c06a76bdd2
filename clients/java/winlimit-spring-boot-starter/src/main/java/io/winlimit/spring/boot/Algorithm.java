package io.winlimit.spring.boot;

/** The algorithm of a policy: one of winlimit's three commands. */
public enum Algorithm {
    /** WINLIMIT.SLIDE: the exact sliding window (or BUCKET), one or several windows. */
    SLIDE,
    /** WINLIMIT.FIXED: a fixed-window counter, one window. */
    FIXED,
    /** WINLIMIT.GCRA: a token bucket; the window is the period, the limit the units per period. */
    GCRA
}
