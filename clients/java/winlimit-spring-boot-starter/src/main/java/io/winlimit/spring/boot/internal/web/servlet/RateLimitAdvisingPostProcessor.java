package io.winlimit.spring.boot.internal.web.servlet;

import java.lang.reflect.Method;

import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.function.SingletonSupplier;

import io.winlimit.spring.boot.internal.web.RateLimitedHandlers;

/**
 * Proxies every bean with a @RateLimit method (or a @RateLimit class) so that the
 * {@link RateLimitMethodInterceptor} runs around those methods, as Spring's own
 * {@code MethodValidationPostProcessor} does for {@code @Validated}: the call goes through the
 * proxy with the arguments Spring resolved. The interceptor is looked up on the first call,
 * so this post-processor, made early, pulls no limiter or Redis connection in with it.
 */
public final class RateLimitAdvisingPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {
    private static final long serialVersionUID = 1L;

    /** A post-processor proxying by class, since controllers' mappings are read from the class. */
    public RateLimitAdvisingPostProcessor() {
        setProxyTargetClass(true); // controllers are classes; their mappings are read from the class
        setBeforeExistingAdvisors(true);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        SingletonSupplier<RateLimitMethodInterceptor> interceptor =
                SingletonSupplier.of(() -> beanFactory.getBean(RateLimitMethodInterceptor.class));
        MethodInterceptor lazy = invocation -> interceptor.obtain().invoke(invocation);
        this.advisor = new DefaultPointcutAdvisor(new StaticMethodMatcherPointcut() {
            @Override
            public boolean matches(Method method, Class<?> targetClass) {
                return !RateLimitedHandlers.annotations(method, targetClass).isEmpty();
            }
        }, lazy);
    }
}
