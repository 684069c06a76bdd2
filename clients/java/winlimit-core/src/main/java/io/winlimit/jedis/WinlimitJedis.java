package io.winlimit.jedis;

import io.winlimit.AsyncLimiter;
import io.winlimit.Limiter;
import io.winlimit.LimiterConfig;
import redis.clients.jedis.UnifiedJedis;

/**
 * Limiters over the application's Jedis client: a {@code JedisPooled}, a {@code JedisCluster}
 * or any {@link UnifiedJedis}. Jedis blocks the calling thread, so there is no reactive view;
 * the async view completes before it returns.
 */
public final class WinlimitJedis {
    private WinlimitJedis() {}

    /**
     * A blocking limiter with the default configuration.
     *
     * @param jedis the application's client (a {@code JedisPooled}, a {@code JedisCluster}), left open
     * @return the limiter; its calls block on Jedis, bounded by Jedis's socket timeout
     */
    public static Limiter limiter(UnifiedJedis jedis) {
        return asyncLimiter(jedis, LimiterConfig.defaults()).sync();
    }

    /**
     * A blocking limiter.
     *
     * @param jedis the application's client (a {@code JedisPooled}, a {@code JedisCluster}), left open
     * @param config the limiter's configuration
     * @return the limiter; its calls block on Jedis, bounded by Jedis's socket timeout
     */
    public static Limiter limiter(UnifiedJedis jedis, LimiterConfig config) {
        return asyncLimiter(jedis, config).sync();
    }

    /**
     * The asynchronous API over Jedis: each stage is complete when the call returns.
     *
     * @param jedis the application's client (a {@code JedisPooled}, a {@code JedisCluster}), left open
     * @param config the limiter's configuration
     * @return the limiter (it has no reactive view)
     */
    public static AsyncLimiter asyncLimiter(UnifiedJedis jedis, LimiterConfig config) {
        return new AsyncLimiter(new JedisExecutor(jedis), config);
    }
}
