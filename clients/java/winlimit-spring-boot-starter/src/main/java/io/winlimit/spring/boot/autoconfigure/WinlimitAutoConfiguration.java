package io.winlimit.spring.boot.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.winlimit.AsyncLimiter;
import io.winlimit.Limiter;
import io.winlimit.LimiterConfig;
import io.winlimit.spring.boot.RateLimits;
import io.winlimit.spring.boot.RatePolicy;
import io.winlimit.LimiterListener;
import io.winlimit.breaker.BreakerOptions;
import io.winlimit.breaker.CircuitBreaker;
import io.winlimit.memory.MemoryLimiter;
import io.winlimit.spring.boot.WinlimitMeters;
import io.winlimit.springdata.SpringDataExecutor;

/**
 * The limiter, over the application's own {@link RedisConnectionFactory} (Lettuce or Jedis,
 * as Spring Boot's Redis auto-configuration made it), and the named policies of
 * {@code winlimit.policies}, each checked here: a bad policy stops the start, naming the
 * property. Boot 3.5 and 4.0 name the Redis auto-configuration differently: both are named.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
        "org.springframework.boot.autoconfigure.data.redis.RedisReactiveAutoConfiguration",
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration"})
@ConditionalOnClass(RedisConnectionFactory.class)
@EnableConfigurationProperties(WinlimitProperties.class)
public class WinlimitAutoConfiguration {

    /**
     * The limiter every policy calls: the application's connection factory, its timeout
     * {@code winlimit.timeout}, its backend {@code winlimit.backend}.
     *
     * @param factory the application's connection factory
     * @param properties winlimit.*
     * @param meters the application's meters, if any
     * @return the limiter
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(RedisConnectionFactory.class)
    public AsyncLimiter winlimitAsyncLimiter(RedisConnectionFactory factory, WinlimitProperties properties,
                                             ObjectProvider<WinlimitMeters> meters) {
        LimiterConfig config = LimiterConfig.defaults().timeout(properties.getTimeout())
                .backend(properties.getBackend()).cacheRejections(properties.isCacheRejections());
        config = config.breaker(properties.isBreaker()
                ? BreakerOptions.defaults().withOpen(properties.getBreakerOpen()) : BreakerOptions.disabled());
        switch (properties.getFallback()) {
            case "none" -> { }
            case "memory" -> config = config.fallback(new MemoryLimiter());
            default -> throw new IllegalArgumentException("winlimit.fallback must be none or memory, not " + properties.getFallback());
        }
        String name = config.name();
        LimiterListener listener = new LimiterListener() {
            @Override
            public void breakerChanged(CircuitBreaker breaker, CircuitBreaker.Transition t) {
                meters.getIfAvailable(() -> WinlimitMeters.NONE).breakerChanged(name, t.node(), breaker.state().ordinal(),
                        t.to().label(), t.cause());
            }
        };
        return new AsyncLimiter(new SpringDataExecutor(factory), config, listener);
    }

    /**
     * The same limiter, blocking, for calls from code.
     *
     * @param limiter the asynchronous limiter
     * @return its blocking view
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(AsyncLimiter.class)
    public Limiter winlimitLimiter(AsyncLimiter limiter) {
        return limiter.sync();
    }

    /**
     * The named policies, each checked now.
     *
     * @param limiter the limiter the policies call
     * @param properties winlimit.*
     * @param meters the application's meters, if any
     * @return the policies
     * @throws IllegalArgumentException for a bad policy, which stops the start
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(AsyncLimiter.class)
    public RateLimits winlimitRateLimits(AsyncLimiter limiter, WinlimitProperties properties,
                                         ObjectProvider<WinlimitMeters> meters) {
        Map<String, RatePolicy> policies = new LinkedHashMap<>();
        properties.getPolicies().forEach((name, policy) -> policies.put(name, RatePolicy.of(name, policy, properties.getMaxLimit())));
        return new RateLimits(limiter, policies, properties.getPrefix(), meters.getIfAvailable(() -> WinlimitMeters.NONE));
    }
}
