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

    /**
     * A blocking limiter over one server's connection with the default configuration.
     *
     * @param connection the application's connection, left open by winlimit
     * @return a blocking limiter; its calls wait up to the configured timeout
     */
    public static Limiter limiter(StatefulRedisConnection<?, ?> connection) {
        return asyncLimiter(connection, LimiterConfig.defaults()).sync();
    }

    /**
     * A blocking limiter over one server's connection.
     *
     * @param connection the application's connection, left open by winlimit
     * @param config the limiter's configuration
     * @return a blocking limiter; its calls wait up to the configured timeout
     */
    public static Limiter limiter(StatefulRedisConnection<?, ?> connection, LimiterConfig config) {
        return asyncLimiter(connection, config).sync();
    }

    /**
     * An asynchronous limiter over one server's connection with the default configuration.
     *
     * @param connection the application's connection, left open by winlimit
     * @return an asynchronous limiter; its calls never block the calling thread
     */
    public static AsyncLimiter asyncLimiter(StatefulRedisConnection<?, ?> connection) {
        return asyncLimiter(connection, LimiterConfig.defaults());
    }

    /**
     * An asynchronous limiter over one server's connection.
     *
     * @param connection the application's connection, left open by winlimit
     * @param config the limiter's configuration
     * @return an asynchronous limiter; its calls never block the calling thread
     */
    public static AsyncLimiter asyncLimiter(StatefulRedisConnection<?, ?> connection, LimiterConfig config) {
        return new AsyncLimiter(new LettuceExecutor(connection), config);
    }

    /**
     * A reactive limiter over one server's connection with the default configuration.
     *
     * @param connection the application's connection, left open by winlimit
     * @return a reactive limiter; nothing is sent until a Mono is subscribed
     */
    public static ReactiveLimiter reactiveLimiter(StatefulRedisConnection<?, ?> connection) {
        return asyncLimiter(connection, LimiterConfig.defaults()).reactive();
    }

    /**
     * A reactive limiter over one server's connection.
     *
     * @param connection the application's connection, left open by winlimit
     * @param config the limiter's configuration
     * @return a reactive limiter; nothing is sent until a Mono is subscribed
     */
    public static ReactiveLimiter reactiveLimiter(StatefulRedisConnection<?, ?> connection, LimiterConfig config) {
        return asyncLimiter(connection, config).reactive();
    }

    /**
     * A blocking limiter over a cluster with the default configuration; each call goes to the node of its key.
     *
     * @param connection the application's cluster connection, left open by winlimit
     * @return a blocking limiter; its calls wait up to the configured timeout
     */
    public static Limiter limiter(StatefulRedisClusterConnection<?, ?> connection) {
        return asyncLimiter(connection, LimiterConfig.defaults()).sync();
    }

    /**
     * A blocking limiter over a cluster; each call goes to the node of its key.
     *
     * @param connection the application's cluster connection, left open by winlimit
     * @param config the limiter's configuration
     * @return a blocking limiter; its calls wait up to the configured timeout
     */
    public static Limiter limiter(StatefulRedisClusterConnection<?, ?> connection, LimiterConfig config) {
        return asyncLimiter(connection, config).sync();
    }

    /**
     * An asynchronous limiter over a cluster with the default configuration; each call goes to the node of its key.
     *
     * @param connection the application's cluster connection, left open by winlimit
     * @return an asynchronous limiter; its calls never block the calling thread
     */
    public static AsyncLimiter asyncLimiter(StatefulRedisClusterConnection<?, ?> connection) {
        return asyncLimiter(connection, LimiterConfig.defaults());
    }

    /**
     * An asynchronous limiter over a cluster; each call goes to the node of its key.
     *
     * @param connection the application's cluster connection, left open by winlimit
     * @param config the limiter's configuration
     * @return an asynchronous limiter; its calls never block the calling thread
     */
    public static AsyncLimiter asyncLimiter(StatefulRedisClusterConnection<?, ?> connection, LimiterConfig config) {
        return new AsyncLimiter(new LettuceExecutor(connection), config);
    }

    /**
     * A reactive limiter over a cluster with the default configuration; each call goes to the node of its key.
     *
     * @param connection the application's cluster connection, left open by winlimit
     * @return a reactive limiter; nothing is sent until a Mono is subscribed
     */
    public static ReactiveLimiter reactiveLimiter(StatefulRedisClusterConnection<?, ?> connection) {
        return asyncLimiter(connection, LimiterConfig.defaults()).reactive();
    }

    /**
     * A reactive limiter over a cluster; each call goes to the node of its key.
     *
     * @param connection the application's cluster connection, left open by winlimit
     * @param config the limiter's configuration
     * @return a reactive limiter; nothing is sent until a Mono is subscribed
     */
    public static ReactiveLimiter reactiveLimiter(StatefulRedisClusterConnection<?, ?> connection, LimiterConfig config) {
        return asyncLimiter(connection, config).reactive();
    }

    /**
     * What the connection's ClientOptions mean for exactness, in one sentence.
     *
     * @param options the connection's options ({@code connection.getOptions()})
     * @return the sentence, for a log line at start-up
     */
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
