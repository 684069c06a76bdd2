package io.winlimit.example.gateway;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/**
 * Spring Cloud Gateway with winlimit's WinlimitRateLimiter on two routes of application.yml: 3
 * SMS per hour per user, and 5 quotes per minute per user, each route with its own count.
 */
@SpringBootApplication
public class GatewayApplication {

    public static void main(String[] args) {
        SpringApplication.run(GatewayApplication.class, args);
    }

    // --8<-- [start:key]
    /** The {user} of the route's path is the key (without it, winlimit keys by client address). */
    @Bean
    public KeyResolver userKey() {
        return exchange -> Mono.justOrEmpty(ServerWebExchangeUtils.getUriTemplateVariables(exchange).get("user"));
    }
    // --8<-- [end:key]
}
