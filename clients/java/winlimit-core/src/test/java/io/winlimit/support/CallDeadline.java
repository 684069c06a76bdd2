package io.winlimit.support;

import io.winlimit.LimiterConfig;
import java.time.Duration;

/**
 * The call deadline of the Java tests whose subject is not a timeout. The limiter's 1 s
 * default is a claim about a healthy server's speed, which a loaded CI machine breaks now and
 * then; these tests assert decisions, not speed. Tests where Redis hangs on purpose set their
 * own short timeout.
 */
public final class CallDeadline {
    /** How long such a test's call may wait for Redis. */
    public static final Duration TIMEOUT = Duration.ofSeconds(10);

    private CallDeadline() {}

    /** The default limiter configuration with {@link #TIMEOUT}. */
    public static LimiterConfig config() {
        return LimiterConfig.defaults().timeout(TIMEOUT);
    }
}
