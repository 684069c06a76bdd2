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

    @Bean
    @ConditionalOnMissingBean
    public ServletRejectionHandler winlimitServletRejectionHandler() {
        return ServletRejectionHandler.DEFAULT;
    }

    @Bean
    public RateLimitedHandlers winlimitServletHandlers(RateLimits rateLimits, BeanFactory beanFactory) {
        return new RateLimitedHandlers(rateLimits, new KeyExpressions(beanFactory));
    }

    @Bean
    public RequestGuard winlimitServletGuard(AsyncLimiter limiter, WinlimitProperties properties,
                                             ObjectProvider<WinlimitMeters> meters) {
        return new RequestGuard(limiter, properties.getPrefix(), properties.getTimeout(),
                meters.getIfAvailable(() -> WinlimitMeters.NONE), new ShadowLog());
    }

    @Bean
    public RateLimitMethodInterceptor winlimitRateLimitMethodInterceptor(RequestGuard winlimitServletGuard,
                                                                         RateLimitedHandlers handlers,
                                                                         WinlimitProperties properties) {
        return new RateLimitMethodInterceptor(winlimitServletGuard, handlers, properties.getIpv6Subnet());
    }

    /** Static: a post-processor is made before the other beans, and must not make this class early. */
    @Bean
    public static RateLimitAdvisingPostProcessor winlimitRateLimitAdvisingPostProcessor() {
        return new RateLimitAdvisingPostProcessor();
    }

    @Bean
    public SettlingFilter winlimitSettlingFilter(RequestGuard winlimitServletGuard) {
        return new SettlingFilter(winlimitServletGuard);
    }

    @Bean
    public RateLimitExceededResolver winlimitRateLimitExceededResolver(ServletRejectionHandler rejection) {
        return new RateLimitExceededResolver(rejection);
    }

    /** Every @RateLimit handler's policy and key, checked once the handlers are mapped. */
    @Bean
    public ApplicationListener<ContextRefreshedEvent> winlimitServletStartupCheck(RateLimitedHandlers handlers) {
        return event -> event.getApplicationContext().getBeansOfType(RequestMappingInfoHandlerMapping.class).values()
                .forEach(mapping -> mapping.getHandlerMethods().values()
                        .forEach(method -> handlers.check(method.getMethod(), method.getBeanType())));
    }
}
