package io.winlimit.spring.boot.autoconfigure;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.reactive.result.method.RequestMappingInfoHandlerMapping;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerAdapter;

import io.winlimit.AsyncLimiter;
import io.winlimit.spring.boot.RateLimits;
import io.winlimit.spring.boot.WinlimitMeters;
import io.winlimit.spring.boot.internal.web.KeyExpressions;
import io.winlimit.spring.boot.internal.web.RateLimitedHandlers;
import io.winlimit.spring.boot.internal.web.RequestGuard;
import io.winlimit.internal.http.ShadowLog;
import io.winlimit.spring.boot.internal.web.reactive.RateLimitExceededHandler;
import io.winlimit.spring.boot.internal.web.reactive.RateLimitHandlerAdapter;
import io.winlimit.spring.boot.web.reactive.ReactiveRejectionHandler;

/** {@code @RateLimit} on WebFlux: the handler adapter that limits @RateLimit methods, the handler of {@code RateLimitExceededException}, and
 * the startup check of every @RateLimit handler. A limiter that blocks (Jedis) is refused
 * here, with the reason: it would stall the event loop. */
@AutoConfiguration(after = {WinlimitAutoConfiguration.class, WinlimitMetricsAutoConfiguration.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(DispatcherHandler.class)
@ConditionalOnBean(RateLimits.class)
@ConditionalOnProperty(prefix = "winlimit", name = "enabled", matchIfMissing = true)
public class WinlimitWebFluxAutoConfiguration {

    /**
     * How a rejection is answered: 429 with the fields; an application's own bean replaces it.
     *
     * @return the handler
     */
    @Bean
    @ConditionalOnMissingBean
    public ReactiveRejectionHandler winlimitReactiveRejectionHandler() {
        return ReactiveRejectionHandler.DEFAULT;
    }

    /**
     * Every @RateLimit handler's policies and key expressions, resolved once per method.
     *
     * @param rateLimits the named policies
     * @param beanFactory for {@code @bean} references in key expressions
     * @return the handlers
     */
    @Bean
    public RateLimitedHandlers winlimitReactiveHandlers(RateLimits rateLimits, BeanFactory beanFactory) {
        return new RateLimitedHandlers(rateLimits, new KeyExpressions(beanFactory));
    }

    /**
     * The request guard: the policies' calls, timeouts, fail open or closed, metrics and shadow
     * mode, shared by every handler.
     *
     * @param limiter the limiter
     * @param properties winlimit.*
     * @param meters the application's meters, if any
     * @return the guard
     * @throws IllegalStateException over a blocking client (Jedis), with the reason
     */
    @Bean
    public RequestGuard winlimitReactiveGuard(AsyncLimiter limiter, WinlimitProperties properties,
                                              ObjectProvider<WinlimitMeters> meters) {
        limiter.reactive(); // IllegalStateException, with the reason, for a blocking client
        return new RequestGuard(limiter, properties.getPrefix(), properties.getTimeout(),
                meters.getIfAvailable(() -> WinlimitMeters.NONE), new ShadowLog());
    }

    /**
     * Spring's own adapter is looked up on the first request: it is made after this one.
     *
     * @param spring Spring's own adapter
     * @param winlimitReactiveGuard the request guard
     * @param winlimitReactiveHandlers the rate-limited handlers
     * @param rejection how a rejection is answered
     * @param properties winlimit.*
     * @return the adapter that checks before Spring's runs the handler
     */
    @Bean
    public RateLimitHandlerAdapter winlimitRateLimitHandlerAdapter(ObjectProvider<RequestMappingHandlerAdapter> spring,
                                                                   RequestGuard winlimitReactiveGuard,
                                                                   RateLimitedHandlers winlimitReactiveHandlers,
                                                                   ReactiveRejectionHandler rejection,
                                                                   WinlimitProperties properties) {
        return new RateLimitHandlerAdapter(SingletonSupplier.of(spring::getObject), winlimitReactiveGuard,
                winlimitReactiveHandlers, rejection, properties.getIpv6Subnet());
    }

    /**
     * Answers a RateLimitExceededException thrown by a handler: 429 with its fields.
     *
     * @param rejection how a rejection is answered
     * @return the exception handler
     */
    @Bean
    public RateLimitExceededHandler winlimitRateLimitExceededHandler(ReactiveRejectionHandler rejection) {
        return new RateLimitExceededHandler(rejection);
    }

    /**
     * Every @RateLimit handler's policy and key, checked once the handlers are mapped.
     *
     * @param winlimitReactiveHandlers the rate-limited handlers
     * @return the listener; a bad policy name or key stops the start
     */
    @Bean
    public ApplicationListener<ContextRefreshedEvent> winlimitReactiveStartupCheck(RateLimitedHandlers winlimitReactiveHandlers) {
        return event -> event.getApplicationContext().getBeansOfType(RequestMappingInfoHandlerMapping.class).values()
                .forEach(mapping -> mapping.getHandlerMethods().values()
                        .forEach(method -> winlimitReactiveHandlers.check(method.getMethod(), method.getBeanType())));
    }
}
