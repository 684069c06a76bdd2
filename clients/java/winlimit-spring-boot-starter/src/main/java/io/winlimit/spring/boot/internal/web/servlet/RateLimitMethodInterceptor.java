package io.winlimit.spring.boot.internal.web.servlet;

import io.winlimit.internal.http.IpKeys;
import io.winlimit.spring.boot.RateLimitExceededException;
import io.winlimit.spring.boot.internal.web.RateLimitedHandlers;
import io.winlimit.spring.boot.web.RateLimiterUnavailableException;
import io.winlimit.spring.boot.internal.web.RequestGuard;
import io.winlimit.spring.boot.internal.web.Verdict;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerMapping;

/**
 * Limits the requests of @RateLimit handler methods on Spring MVC. It runs around the handler
 * method once Spring has resolved its arguments (the body read, the principal known) and
 * before the method's body: the keys are the arguments as the handler gets them. An accepted
 * request gets every policy's header fields; a rejected one a {@link RateLimitExceededException}
 * carrying the fields of every policy decided, which the {@link RateLimitExceededResolver}
 * answers (429); Redis failing, a {@link RateLimiterUnavailableException} (503), or, failing
 * open, the handler's answer without the fields. A call that is not the request's handler (a
 * method called from code) is not limited here.
 */
public final class RateLimitMethodInterceptor implements MethodInterceptor {
    /** The request attribute holding the verdicts the request was let through with. */
    public static final String VERDICTS = RateLimitMethodInterceptor.class.getName() + ".verdicts";

    private final RequestGuard guard;
    private final RateLimitedHandlers handlers;
    private final int ipv6Subnet;

    /**
     * An interceptor checking each call's limits before the method runs.
     *
     * @param guard the request guard
     * @param handlers the rate-limited handlers
     * @param ipv6Subnet the bits of an IPv6 client address that make its default key
     */
    public RateLimitMethodInterceptor(RequestGuard guard, RateLimitedHandlers handlers, int ipv6Subnet) {
        this.guard = guard;
        this.handlers = handlers;
        this.ipv6Subnet = IpKeys.checkSubnet(ipv6Subnet);
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
        if (!(attributes instanceof ServletRequestAttributes servlet) || servlet.getResponse() == null) {
            return invocation.proceed();
        }
        HttpServletRequest request = servlet.getRequest();
        Class<?> target = invocation.getThis() == null ? invocation.getMethod().getDeclaringClass()
                : AopUtils.getTargetClass(invocation.getThis());
        Method method = AopUtils.getMostSpecificMethod(invocation.getMethod(), target);
        if (!isTheHandler(request, method)) {
            return invocation.proceed();
        }
        List<RequestGuard.Check> checks = handlers.checks(method, target, request, invocation.getArguments(),
                r -> request.getRemoteAddr() == null ? null : IpKeys.ipKey(request.getRemoteAddr(), ipv6Subnet));
        List<Verdict> verdicts = guard.decideNow(checks);
        answer(request, servlet.getResponse(), verdicts);
        return invocation.proceed();
    }

    /** Puts the fields on the response; throws for a request that does not pass. */
    private static void answer(HttpServletRequest request, HttpServletResponse response, List<Verdict> verdicts) {
        Map<String, String> fields = RequestGuard.fields(verdicts);
        fields.forEach(response::setHeader);
        for (Verdict verdict : verdicts) {
            if (verdict.unavailable()) {
                throw new RateLimiterUnavailableException(verdict.policy().name());
            }
            if (verdict.rejected()) {
                throw new RateLimitExceededException(verdict.policy().name(), verdict.decision(), fields);
            }
            // Counted: settled (refunded or kept) by the SettlingFilter once the status is known.
            verdicts(request).add(verdict);
        }
    }

    private static boolean isTheHandler(HttpServletRequest request, Method method) {
        Object handler = request.getAttribute(HandlerMapping.BEST_MATCHING_HANDLER_ATTRIBUTE);
        return handler instanceof HandlerMethod handlerMethod && handlerMethod.getMethod().equals(method);
    }

    @SuppressWarnings("unchecked")
    static List<Verdict> verdicts(HttpServletRequest request) {
        Object held = request.getAttribute(VERDICTS);
        if (held instanceof List<?> list) {
            return (List<Verdict>) list;
        }
        List<Verdict> out = new ArrayList<>();
        request.setAttribute(VERDICTS, out);
        return out;
    }
}
