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
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping;

import io.winlimit.AsyncLimiter;
import io.winlimit.spring.boot.RateLimits;
import io.winlimit.spring.boot.WinlimitMeters;
import io.winlimit.spring.boot.internal.web.KeyExpressions;
import io.winlimit.spring.boot.internal.web.RateLimitedHandlers;
import io.winlimit.spring.boot.internal.web.RequestGuard;
import io.winlimit.internal.http.ShadowLog;
import io.winlimit.spring.boot.internal.web.servlet.RateLimitExceededResolver;
import io.winlimit.spring.boot.internal.web.servlet.RateLimitAdvisingPostProcessor;
import io.winlimit.spring.boot.internal.web.servlet.RateLimitMethodInterceptor;
import io.winlimit.spring.boot.web.servlet.ServletRejectionHandler;
import io.winlimit.spring.boot.internal.web.servlet.SettlingFilter;

/** {@code @RateLimit} on Spring MVC: the proxy around @RateLimit methods and its interceptor, the filter that settles refunds, the resolver
 * of {@code RateLimitExceededException}, and the startup check of every @RateLimit handler. */
@AutoConfiguration(after = {WinlimitAutoConfiguration.class, WinlimitMetricsAutoConfiguration.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBean(RateLimits.class)
@ConditionalOnProperty(prefix = "winlimit", name = "enabled", matchIfMissing = true)
public class WinlimitWebMvcAutoConfiguration {

    /**
     * How a rejection is answered: 429 with the fields; an application's own bean replaces it.
     *
     * @return the handler
     */
    @Bean
    @ConditionalOnMissingBean
    public ServletRejectionHandler winlimitServletRejectionHandler() {
        return ServletRejectionHandler.DEFAULT;
    }

    /**
     * Every @RateLimit handler's policies and key expressions, resolved once per method.
     *
     * @param rateLimits the named policies
     * @param beanFactory for {@code @bean} references in key expressions
     * @return the handlers
     */
    @Bean
    public RateLimitedHandlers winlimitServletHandlers(RateLimits rateLimits, BeanFactory beanFactory) {
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
     */
    @Bean
    public RequestGuard winlimitServletGuard(AsyncLimiter limiter, WinlimitProperties properties,
                                             ObjectProvider<WinlimitMeters> meters) {
        return new RequestGuard(limiter, properties.getPrefix(), properties.getTimeout(),
                meters.getIfAvailable(() -> WinlimitMeters.NONE), new ShadowLog());
    }

    /**
     * The interceptor around every @RateLimit handler method.
     *
     * @param winlimitServletGuard the request guard
     * @param handlers the rate-limited handlers
     * @param properties winlimit.*
     * @return the interceptor
     */
    @Bean
    public RateLimitMethodInterceptor winlimitRateLimitMethodInterceptor(RequestGuard winlimitServletGuard,
                                                                         RateLimitedHandlers handlers,
                                                                         WinlimitProperties properties) {
        return new RateLimitMethodInterceptor(winlimitServletGuard, handlers, properties.getIpv6Subnet());
    }

    /**
     * Static: a post-processor is made before the other beans, and must not make this class early.
     *
     * @return the post-processor that advises @RateLimit beans
     */
    @Bean
    public static RateLimitAdvisingPostProcessor winlimitRateLimitAdvisingPostProcessor() {
        return new RateLimitAdvisingPostProcessor();
    }

    /**
     * Settles each limited request once its status is known (the refunds of {@code count}).
     *
     * @param winlimitServletGuard the request guard
     * @return the filter
     */
    @Bean
    public SettlingFilter winlimitSettlingFilter(RequestGuard winlimitServletGuard) {
        return new SettlingFilter(winlimitServletGuard);
    }

    /**
     * Answers a RateLimitExceededException thrown by a handler: 429 with its fields.
     *
     * @param rejection how a rejection is answered
     * @return the resolver
     */
    @Bean
    public RateLimitExceededResolver winlimitRateLimitExceededResolver(ServletRejectionHandler rejection) {
        return new RateLimitExceededResolver(rejection);
    }

    /**
     * Every @RateLimit handler's policy and key, checked once the handlers are mapped.
     *
     * @param handlers the rate-limited handlers
     * @return the listener; a bad policy name or key stops the start
     */
    @Bean
    public ApplicationListener<ContextRefreshedEvent> winlimitServletStartupCheck(RateLimitedHandlers handlers) {
        return event -> event.getApplicationContext().getBeansOfType(RequestMappingInfoHandlerMapping.class).values()
                .forEach(mapping -> mapping.getHandlerMethods().values()
                        .forEach(method -> handlers.check(method.getMethod(), method.getBeanType())));
    }
}
