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

    /**
     * A blocking limiter with the default configuration.
     *
     * @param factory the application's factory (Lettuce or Jedis), left as it is
     * @return a blocking limiter; its calls wait up to the configured timeout
     */
    public static Limiter limiter(RedisConnectionFactory factory) {
        return asyncLimiter(factory, LimiterConfig.defaults()).sync();
    }

    /**
     * A blocking limiter.
     *
     * @param factory the application's factory (Lettuce or Jedis), left as it is
     * @param config the limiter's configuration
     * @return a blocking limiter; its calls wait up to the configured timeout
     */
    public static Limiter limiter(RedisConnectionFactory factory, LimiterConfig config) {
        return asyncLimiter(factory, config).sync();
    }

    /**
     * A blocking limiter over a template's factory, with the default configuration.
     *
     * @param template the application's template; its connection factory is used
     * @return a blocking limiter; its calls wait up to the configured timeout
     */
    public static Limiter limiter(StringRedisTemplate template) {
        return limiter(template.getRequiredConnectionFactory());
    }

    /**
     * A blocking limiter over a template's factory.
     *
     * @param template the application's template; its connection factory is used
     * @param config the limiter's configuration
     * @return a blocking limiter; its calls wait up to the configured timeout
     */
    public static Limiter limiter(StringRedisTemplate template, LimiterConfig config) {
        return limiter(template.getRequiredConnectionFactory(), config);
    }

    /**
     * An asynchronous limiter: over Lettuce it never blocks the calling thread, over Jedis
     * each stage is complete when the call returns.
     *
     * @param factory the application's factory (Lettuce or Jedis), left as it is
     * @param config the limiter's configuration
     * @return the limiter
     */
    public static AsyncLimiter asyncLimiter(RedisConnectionFactory factory, LimiterConfig config) {
        return new AsyncLimiter(new SpringDataExecutor(factory), config);
    }

    /**
     * The reactive limiter over a reactive factory (Spring Data Redis's LettuceConnectionFactory):
     * each call is dispatched on the factory's native Lettuce connection, taken once, with no
     * connection borrowed per call and no thread hop.
     *
     * @param factory the application's factory
     * @return a reactive limiter; nothing is sent until a Mono is subscribed
     * @throws IllegalArgumentException if {@code factory} is not a LettuceConnectionFactory
     */
    public static ReactiveLimiter reactiveLimiter(ReactiveRedisConnectionFactory factory) {
        return reactiveLimiter(factory, LimiterConfig.defaults());
    }

    /**
     * The reactive limiter over a reactive factory (Spring Data Redis's LettuceConnectionFactory).
     *
     * @param factory the application's factory
     * @param config the limiter's configuration
     * @return a reactive limiter; nothing is sent until a Mono is subscribed
     * @throws IllegalArgumentException if {@code factory} is not a LettuceConnectionFactory
     */
    public static ReactiveLimiter reactiveLimiter(ReactiveRedisConnectionFactory factory, LimiterConfig config) {
        if (!(factory instanceof LettuceConnectionFactory lettuce)) {
            throw new IllegalArgumentException("winlimit's reactive limiter works with Spring Data Redis's "
                    + "LettuceConnectionFactory, not " + (factory == null ? "null" : factory.getClass().getName()));
        }
        return asyncLimiter(lettuce, config).reactive();
    }
}
