package io.winlimit.springdata;

import io.winlimit.AsyncLimiter;
import io.winlimit.Limiter;
import io.winlimit.LimiterConfig;
import io.winlimit.ReactiveLimiter;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Limiters over Spring Data Redis: the application's {@link RedisConnectionFactory} (what a
 * {@link StringRedisTemplate} holds), or its {@link ReactiveRedisConnectionFactory} for
 * WebFlux. Lettuce and Jedis factories are served, single server or cluster; the reactive view
 * needs Lettuce.
 */
public final class WinlimitSpringData {
    private WinlimitSpringData() {}

    public static Limiter limiter(RedisConnectionFactory factory) {
        return asyncLimiter(factory, LimiterConfig.defaults()).sync();
    }

    public static Limiter limiter(RedisConnectionFactory factory, LimiterConfig config) {
        return asyncLimiter(factory, config).sync();
    }

    public static Limiter limiter(StringRedisTemplate template) {
        return limiter(template.getRequiredConnectionFactory());
    }

    public static Limiter limiter(StringRedisTemplate template, LimiterConfig config) {
        return limiter(template.getRequiredConnectionFactory(), config);
    }

    public static AsyncLimiter asyncLimiter(RedisConnectionFactory factory, LimiterConfig config) {
        return new AsyncLimiter(new SpringDataExecutor(factory), config);
    }

    /** The reactive limiter over a reactive factory (Spring Data Redis's LettuceConnectionFactory):
     * each call is dispatched on the factory's native Lettuce connection, taken once, with no
     * connection borrowed per call and no thread hop. */
    public static ReactiveLimiter reactiveLimiter(ReactiveRedisConnectionFactory factory) {
        return reactiveLimiter(factory, LimiterConfig.defaults());
    }

    public static ReactiveLimiter reactiveLimiter(ReactiveRedisConnectionFactory factory, LimiterConfig config) {
        if (!(factory instanceof LettuceConnectionFactory lettuce)) {
            throw new IllegalArgumentException("winlimit's reactive limiter works with Spring Data Redis's "
                    + "LettuceConnectionFactory, not " + (factory == null ? "null" : factory.getClass().getName()));
        }
        return asyncLimiter(lettuce, config).reactive();
    }
}
