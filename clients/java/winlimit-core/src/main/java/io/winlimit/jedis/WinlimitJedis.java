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

    public static Limiter limiter(UnifiedJedis jedis) {
        return asyncLimiter(jedis, LimiterConfig.defaults()).sync();
    }

    public static Limiter limiter(UnifiedJedis jedis, LimiterConfig config) {
        return asyncLimiter(jedis, config).sync();
    }

    public static AsyncLimiter asyncLimiter(UnifiedJedis jedis, LimiterConfig config) {
        return new AsyncLimiter(new JedisExecutor(jedis), config);
    }
}
