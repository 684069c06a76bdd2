package io.winlimit.spring.boot.internal.web;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

import io.winlimit.spring.boot.RateLimits;
import io.winlimit.spring.boot.RatePolicy;
import io.winlimit.spring.boot.annotation.RateLimit;

/** Which limits a handler method has, from its @RateLimits or its class's, and the key each
 * gives a request. Read once per method, checked at startup. */
public final class RateLimitedHandlers {
    private final RateLimits rateLimits;
    private final KeyExpressions keys;
    private final Map<Method, List<Limit>> limits = new ConcurrentHashMap<>();

    /**
     * Handlers limited by the named policies.
     *
     * @param rateLimits the named policies
     * @param keys the key expressions
     */
    public RateLimitedHandlers(RateLimits rateLimits, KeyExpressions keys) {
        this.rateLimits = rateLimits;
        this.keys = keys;
    }

    /** One @RateLimit of a method: its policy and key expression (null: the client's address). */
    public record Limit(RatePolicy policy, String expression) {}

    /**
     * The method's @RateLimits in the order written, its class's if it has none; empty if neither
     * has one.
     *
     * @param method the handler method
     * @param beanType the bean's class (the method's class or a subclass)
     * @return the annotations
     */
    public static List<RateLimit> annotations(Method method, Class<?> beanType) {
        Set<RateLimit> own = AnnotatedElementUtils.findMergedRepeatableAnnotations(method, RateLimit.class);
        if (!own.isEmpty()) {
            return List.copyOf(own);
        }
        return List.copyOf(AnnotatedElementUtils.findMergedRepeatableAnnotations(beanType, RateLimit.class));
    }

    /**
     * The limits of a handler method (empty: not limited).
     *
     * @param method the handler method
     * @param beanType the bean's class (the method's class or a subclass)
     * @return the limits, read once per method
     * @throws IllegalArgumentException for a policy name that is not configured
     */
    public List<Limit> limits(Method method, Class<?> beanType) {
        return limits.computeIfAbsent(method, m -> {
            List<Limit> out = new ArrayList<>();
            for (RateLimit annotation : annotations(m, beanType)) {
                RatePolicy policy = rateLimits.policy(annotation.value());
                out.add(new Limit(policy, annotation.key().isEmpty() ? policy.key() : annotation.key()));
            }
            return List.copyOf(out);
        });
    }

    /**
     * The checks of a call of {@code method} with these resolved {@code arguments}: a limit
     * whose key is null is left out. {@code address} gives the client's address key.
     *
     * @param method the handler method
     * @param beanType the bean's class (the method's class or a subclass)
     * @param request the request, {@code #request}
     * @param arguments the method's arguments, as Spring resolved them
     * @param address the client's address key of the request
     * @return the checks, in the order of the annotations
     */
    public List<RequestGuard.Check> checks(Method method, Class<?> beanType, Object request, Object[] arguments,
                                           Function<Object, String> address) {
        List<RequestGuard.Check> out = new ArrayList<>();
        for (Limit limit : limits(method, beanType)) {
            String key = limit.expression() == null ? address.apply(request)
                    : keys.key(method, limit.expression(), request, arguments);
            if (key != null) {
                out.add(new RequestGuard.Check(limit.policy(), key));
            }
        }
        return out;
    }

    /**
     * Checks a handler at startup: it can be subclassed, its policies exist, its key
     * expressions parse and name only its arguments and #request.
     *
     * @param method the handler method
     * @param beanType the bean's class (the method's class or a subclass)
     * @throws IllegalStateException naming what is wrong, which stops the start
     */
    public void check(Method method, Class<?> beanType) {
        List<RateLimit> annotations = annotations(method, beanType);
        String why = annotations.isEmpty() ? null : whyNotOverridable(beanType, method);
        if (why != null) {
            // A subclass that cannot override the method would run it unlimited, silently.
            throw new IllegalStateException("@RateLimit on " + KeyExpressions.describe(method) + " cannot be limited: " + why
                    + " (the starter subclasses the controller: a proxy on MVC, a stand-in that receives the resolved"
                    + " arguments on WebFlux)");
        }
        for (RateLimit annotation : annotations) {
            RatePolicy policy;
            try {
                policy = rateLimits.policy(annotation.value());
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("@RateLimit on " + KeyExpressions.describe(method) + ": " + e.getMessage(), e);
            }
            String expression = annotation.key().isEmpty() ? policy.key() : annotation.key();
            if (expression != null) {
                keys.check(method, expression);
            }
        }
    }

    /** Why a subclass of {@code type} cannot override {@code method}, or null. */
    static String whyNotOverridable(Class<?> type, Method method) {
        Class<?> user = ClassUtils.getUserClass(type);
        if (Modifier.isFinal(user.getModifiers())) {
            return "its class " + user.getName() + " is final";
        }
        int modifiers = method.getModifiers();
        if (Modifier.isFinal(modifiers) || Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers)) {
            return "the method is final, private or static";
        }
        return null;
    }

    /**
     * The key expressions.
     *
     * @return the expressions
     */
    public KeyExpressions keys() {
        return keys;
    }
}
