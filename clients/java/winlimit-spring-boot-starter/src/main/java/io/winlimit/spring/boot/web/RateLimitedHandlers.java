package io.winlimit.spring.boot.web;

import java.lang.reflect.Method;

import org.springframework.core.annotation.AnnotatedElementUtils;

import io.winlimit.spring.boot.RateLimits;
import io.winlimit.spring.boot.RatePolicy;
import io.winlimit.spring.boot.annotation.RateLimit;

/** Which policy and key expression a handler method has, from its @RateLimit or its class's. */
public final class RateLimitedHandlers {
    private final RateLimits rateLimits;
    private final KeyExpressions keys;

    public RateLimitedHandlers(RateLimits rateLimits, KeyExpressions keys) {
        this.rateLimits = rateLimits;
        this.keys = keys;
    }

    /** The method's @RateLimit, its class's if it has none, or null. */
    public static RateLimit annotation(Method method, Class<?> beanType) {
        RateLimit own = AnnotatedElementUtils.findMergedAnnotation(method, RateLimit.class);
        return own != null ? own : AnnotatedElementUtils.findMergedAnnotation(beanType, RateLimit.class);
    }

    /** The policy a @RateLimit names. */
    public RatePolicy policy(RateLimit annotation) {
        return rateLimits.policy(annotation.value());
    }

    /** The key expression of a @RateLimit: its own, or its policy's; null for the client's address. */
    public String keyExpression(RateLimit annotation) {
        return annotation.key().isEmpty() ? policy(annotation).key() : annotation.key();
    }

    /** Checks a handler at startup: its policy exists, its key expression parses and names
     * only what the request gives. */
    public void check(Method method, Class<?> beanType) {
        RateLimit annotation = annotation(method, beanType);
        if (annotation == null) {
            return;
        }
        try {
            policy(annotation);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("@RateLimit on " + KeyExpressions.describe(method) + ": " + e.getMessage(), e);
        }
        String expression = keyExpression(annotation);
        if (expression != null) {
            keys.check(method, expression);
        }
    }

    public KeyExpressions keys() {
        return keys;
    }
}
