package io.winlimit.spring.boot;

/** Which requests use up a policy's limit. Every request is counted before the handler runs
 * (so concurrent requests cannot all slip through); one that does not count gets its units
 * back once its status is known. */
public enum Count {
    /** Every request. */
    ALL,
    /** Requests answered with a status of 400 or more, or whose handler threw. */
    FAILURES,
    /** Requests answered with a status below 400. */
    SUCCESSES;

    /**
     * Whether a request that ended with {@code status} (null: the handler threw) gives its units
     * back.
     *
     * @param status the response's status, or null
     * @return true if the units are given back
     */
    public boolean refunds(Integer status) {
        if (this == ALL) {
            return false;
        }
        boolean failed = status == null || status >= 400;
        return this == SUCCESSES ? failed : !failed;
    }
}
