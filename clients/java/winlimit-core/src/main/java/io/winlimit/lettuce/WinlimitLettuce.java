package io.winlimit.lettuce;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.winlimit.AsyncLimiter;
import io.winlimit.Limiter;
import io.winlimit.LimiterConfig;
import io.winlimit.ReactiveLimiter;

/**
 * Limiters over the application's Lettuce connection, single server or cluster. The
 * connection stays the application's: winlimit never closes it.
 *
 * <p>Exactness: Lettuce delivers at least once by default. With auto-reconnect on and the
 * default disconnected behaviour, a command issued while the connection is down is buffered
 * and written once it is back. winlimit cancels a command it stopped waiting for (after the
 * limiter's timeout), so a buffered command it gave up on is never written: each call is
 * counted at most once. {@link #reliability} says what the connection's options mean.
 */
public final class WinlimitLettuce {
    private WinlimitLettuce() {}

    public static Limiter limiter(StatefulRedisConnection<?, ?> connection) {
        return asyncLimiter(connection, LimiterConfig.defaults()).sync();
    }

    public static Limiter limiter(StatefulRedisConnection<?, ?> connection, LimiterConfig config) {
        return asyncLimiter(connection, config).sync();
    }

    public static AsyncLimiter asyncLimiter(StatefulRedisConnection<?, ?> connection) {
        return asyncLimiter(connection, LimiterConfig.defaults());
    }

    public static AsyncLimiter asyncLimiter(StatefulRedisConnection<?, ?> connection, LimiterConfig config) {
        return new AsyncLimiter(new LettuceExecutor(connection), config);
    }

    public static ReactiveLimiter reactiveLimiter(StatefulRedisConnection<?, ?> connection) {
        return asyncLimiter(connection, LimiterConfig.defaults()).reactive();
    }

    public static ReactiveLimiter reactiveLimiter(StatefulRedisConnection<?, ?> connection, LimiterConfig config) {
        return asyncLimiter(connection, config).reactive();
    }

    public static Limiter limiter(StatefulRedisClusterConnection<?, ?> connection) {
        return asyncLimiter(connection, LimiterConfig.defaults()).sync();
    }

    public static Limiter limiter(StatefulRedisClusterConnection<?, ?> connection, LimiterConfig config) {
        return asyncLimiter(connection, config).sync();
    }

    public static AsyncLimiter asyncLimiter(StatefulRedisClusterConnection<?, ?> connection) {
        return asyncLimiter(connection, LimiterConfig.defaults());
    }

    public static AsyncLimiter asyncLimiter(StatefulRedisClusterConnection<?, ?> connection, LimiterConfig config) {
        return new AsyncLimiter(new LettuceExecutor(connection), config);
    }

    public static ReactiveLimiter reactiveLimiter(StatefulRedisClusterConnection<?, ?> connection) {
        return asyncLimiter(connection, LimiterConfig.defaults()).reactive();
    }

    public static ReactiveLimiter reactiveLimiter(StatefulRedisClusterConnection<?, ?> connection, LimiterConfig config) {
        return asyncLimiter(connection, config).reactive();
    }

    /** What the connection's ClientOptions mean for exactness, in one sentence. */
    public static String reliability(ClientOptions options) {
        if (!options.isAutoReconnect()) {
            return "auto-reconnect is off: a call made while disconnected fails at once and is never sent";
        }
        return switch (options.getDisconnectedBehavior()) {
            case REJECT_COMMANDS -> "commands are rejected while disconnected: such a call fails at once and is never sent";
            default -> "commands are buffered while disconnected: a call fails after the limiter's timeout and is then "
                    + "cancelled, so it is never sent later (counted at most once)";
        };
    }
}
