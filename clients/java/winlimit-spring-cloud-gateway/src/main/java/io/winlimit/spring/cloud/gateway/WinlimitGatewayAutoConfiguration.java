package io.winlimit.spring.cloud.gateway;

import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.gateway.event.FilterArgsEvent;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.route.RouteDefinition;
import org.springframework.cloud.gateway.route.RouteDefinitionLocator;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.context.event.ContextRefreshedEvent;

import io.winlimit.AsyncLimiter;
import io.winlimit.internal.http.IpKeys;
import io.winlimit.internal.http.ShadowLog;
import io.winlimit.spring.boot.WinlimitMeters;
import io.winlimit.spring.boot.autoconfigure.WinlimitAutoConfiguration;
import io.winlimit.spring.boot.autoconfigure.WinlimitMetricsAutoConfiguration;
import io.winlimit.spring.boot.autoconfigure.WinlimitProperties;
import io.winlimit.spring.boot.internal.web.RequestGuard;
import reactor.core.publisher.Mono;

/**
 * The gateway's {@link WinlimitRateLimiter}, before the gateway's own configuration: the
 * RequestRateLimiter filter factory needs a RateLimiter bean, and Spring Cloud Gateway's
 * RedisRateLimiter is made only when there is none. Also a default {@link KeyResolver}, the
 * client's address (an IPv6 one as its /64), and a check of every route's arguments at startup.
 */
@AutoConfiguration(after = {WinlimitAutoConfiguration.class, WinlimitMetricsAutoConfiguration.class},
        beforeName = {"org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration",
                "org.springframework.cloud.gateway.config.GatewayAutoConfiguration"})
@ConditionalOnClass(AbstractRateLimiter.class)
@ConditionalOnBean(AsyncLimiter.class)
public class WinlimitGatewayAutoConfiguration {
    private static final String REQUEST_RATE_LIMITER = "RequestRateLimiter";

    /**
     * Primary: the gateway also makes its RedisRateLimiter (its condition looks for that type
     * only), and the RequestRateLimiter filter takes the one RateLimiter it is given.
     *
     * @param limiter the starter's limiter
     * @param properties winlimit.*
     * @param meters the application's meters, if any
     * @param configurationService the gateway's, which binds each route's arguments
     * @return the rate limiter
     * @throws IllegalStateException over a blocking client (Jedis), with the reason
     */
    @Bean
    @Primary
    @ConditionalOnMissingBean
    public WinlimitRateLimiter winlimitRateLimiter(AsyncLimiter limiter, WinlimitProperties properties,
                                                   ObjectProvider<WinlimitMeters> meters,
                                                   ObjectProvider<ConfigurationService> configurationService) {
        RequestGuard guard = new RequestGuard(limiter, properties.getPrefix(), properties.getTimeout(),
                meters.getIfAvailable(() -> WinlimitMeters.NONE), new ShadowLog());
        return new WinlimitRateLimiter(limiter, guard, configurationService.getIfAvailable(), properties.getMaxLimit());
    }

    /**
     * The client's address as the key, as the other winlimit middleware have it.
     *
     * @param properties winlimit.* (its ipv6-subnet)
     * @return the resolver; empty for a request without a remote address
     * @throws IllegalArgumentException for an ipv6-subnet outside 1 to 128
     */
    @Bean
    @ConditionalOnMissingBean(KeyResolver.class)
    public KeyResolver winlimitAddressKeyResolver(WinlimitProperties properties) {
        int subnet = IpKeys.checkSubnet(properties.getIpv6Subnet());
        return exchange -> {
            InetSocketAddress remote = exchange.getRequest().getRemoteAddress();
            if (remote == null) {
                return Mono.empty();
            }
            String address = remote.getAddress() != null ? remote.getAddress().getHostAddress() : remote.getHostString();
            return Mono.just(IpKeys.ipKey(address, subnet));
        };
    }

    /**
     * Binds and checks every route's RequestRateLimiter arguments now: a bad one stops the
     * start (the gateway itself would log it and drop the route's limit, or ignore it).
     *
     * @param winlimitRateLimiter the rate limiter the routes' arguments are bound to
     * @param routes the gateway's route locators
     * @return the listener
     */
    @Bean
    public ApplicationListener<ContextRefreshedEvent> winlimitGatewayRoutesCheck(WinlimitRateLimiter winlimitRateLimiter,
                                                                                 ObjectProvider<RouteDefinitionLocator> routes) {
        return event -> routes.orderedStream().forEach(locator -> {
            for (RouteDefinition route : locator.getRouteDefinitions().collectList().block()) {
                for (FilterDefinition filter : route.getFilters()) {
                    Map<String, Object> args = new LinkedHashMap<>(filter.getArgs());
                    if (REQUEST_RATE_LIMITER.equals(filter.getName())) {
                        RouteArguments.check(route.getId(), args);
                    }
                    boolean ours = args.keySet().stream()
                            .anyMatch(k -> k.startsWith(WinlimitRateLimiter.CONFIGURATION_PROPERTY_NAME + "."));
                    if (ours) {
                        winlimitRateLimiter.onApplicationEvent(new FilterArgsEvent(this, route.getId(), args));
                    }
                }
            }
        });
    }
}
