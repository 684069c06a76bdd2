package io.winlimit.internal.breaker;

import io.winlimit.model.RedisServerException;
import io.winlimit.model.RedisTimeoutException;
import io.winlimit.model.RedisUnavailableException;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Which errors of a Redis call count against the breaker: the connection failing, no answer in
 * time, or a server error that says the server cannot serve now. An error that is the caller's
 * (WRONGTYPE, a bad argument) is an answer from a working server. */
public final class Failures {
    /** The server replies that mean it cannot serve now. */
    public static final Set<String> UNAVAILABLE_REPLIES = Set.of("LOADING", "BUSY", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN",
            "READONLY");
    private static final Pattern CODE = Pattern.compile("^[A-Z][A-Z_]*(?= |$)");

    private Failures() {}

    /**
     * "connection", "timeout", or a server error reply's first word.
     *
     * @param error the call's failure
     * @return the kind; "other" for an error that is none of these
     */
    public static String kind(Throwable error) {
        if (error instanceof RedisTimeoutException) {
            return "timeout";
        }
        if (error instanceof RedisServerException) {
            Matcher m = CODE.matcher(String.valueOf(error.getMessage()));
            return m.find() ? m.group() : "ERR";
        }
        if (error instanceof RedisUnavailableException) {
            return "connection";
        }
        return "other";
    }

    /**
     * Whether {@code error} says Redis is unavailable.
     *
     * @param error the call's failure
     * @return true if it counts towards opening the breaker
     */
    public static boolean counts(Throwable error) {
        String kind = kind(error);
        return kind.equals("connection") || kind.equals("timeout") || UNAVAILABLE_REPLIES.contains(kind);
    }
}
