package io.winlimit.internal.http;

import java.time.Duration;

/** The middleware defaults every winlimit client shares (clients/spec/constants.json), for the
 * Spring middleware and any other built on the core. */
public final class MiddlewareDefaults {
    /** What each key is prefixed with. */
    public static final String PREFIX = "rl:";
    /** Whether a request passes when Redis fails (false: 503). */
    public static final boolean FAIL_OPEN = false;
    /** Whether rejections are only logged and counted, and let through. */
    public static final boolean SHADOW = false;
    /** How long a request waits for Redis. */
    public static final Duration TIMEOUT = Duration.ofMillis(1000);

    private MiddlewareDefaults() {}
}
