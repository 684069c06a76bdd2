package io.winlimit.bench.gateway;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.winlimit.AsyncLimiter;
import io.winlimit.LimiterConfig;
import io.winlimit.internal.http.ShadowLog;
import io.winlimit.spring.boot.WinlimitMeters;
import io.winlimit.spring.boot.autoconfigure.WinlimitProperties;
import io.winlimit.spring.boot.internal.web.RequestGuard;
import io.winlimit.spring.cloud.gateway.WinlimitRateLimiter;
import io.winlimit.springdata.WinlimitSpringData;
import reactor.core.publisher.Mono;

/**
 * The gateway of make bench-gateway (routes in application.yml). Boot's Redis connection is the
 * server with the module: Spring Cloud Gateway's RedisRateLimiter and the winlimitModule limiter
 * use it. The winlimitFunctions limiter is the same limiter on a server without the module,
 * where it runs the library as Functions. The key is the X-Key header, which the load rotates.
 */
@SpringBootApplication
public class GatewayBench {
    public static void main(String[] args) {
        SpringApplication.run(GatewayBench.class, args);
    }

    @Bean
    public KeyResolver headerKey() {
        return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Key"));
    }

    /** What the gateway auto-configuration makes from Boot's connection (the module). */
    @Bean
    @Primary
    public WinlimitRateLimiter winlimitModule(AsyncLimiter limiter, WinlimitProperties properties,
                                              ObjectProvider<ConfigurationService> configurationService) {
        return limiter(limiter, properties, configurationService);
    }

    /** The same limiter, on a connection factory of its own to the server without the module. */
    @Bean
    public WinlimitRateLimiter winlimitFunctions(@Value("${bench.functions-port}") int port,
                                                 WinlimitProperties properties,
                                                 ObjectProvider<ConfigurationService> configurationService) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory("127.0.0.1", port);
        factory.afterPropertiesSet();
        factory.start();
        AsyncLimiter limiter = WinlimitSpringData.asyncLimiter(factory,
                LimiterConfig.defaults().timeout(properties.getTimeout()));
        return limiter(limiter, properties, configurationService);
    }

    private static WinlimitRateLimiter limiter(AsyncLimiter limiter, WinlimitProperties properties,
                                               ObjectProvider<ConfigurationService> configurationService) {
        RequestGuard guard = new RequestGuard(limiter, properties.getPrefix(), properties.getTimeout(),
                WinlimitMeters.NONE, new ShadowLog());
        return new WinlimitRateLimiter(limiter, guard, configurationService.getIfAvailable(), properties.getMaxLimit());
    }
}
