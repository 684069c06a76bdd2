package io.winlimit.spring.boot.web.servlet;

import io.winlimit.http.IpKeys;
import io.winlimit.model.HeaderStyle;
import io.winlimit.spring.boot.RatePolicy;
import io.winlimit.spring.boot.annotation.RateLimit;
import io.winlimit.spring.boot.web.KeyExpressions;
import io.winlimit.spring.boot.web.RateLimitedHandlers;
import io.winlimit.spring.boot.web.RequestGuard;
import io.winlimit.spring.boot.web.Verdict;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.HandlerMapping;

/**
 * Limits the requests of @RateLimit handler methods on Spring MVC, before the handler runs:
 * an accepted request gets the policy's header fields, a rejected one is answered by the
 * {@link ServletRejectionHandler} (429) with them and Retry-After, and when Redis fails it is
 * answered 503 or, failing open, let through without them. A request whose key is null is not
 * limited. The {@link SettlingFilter} gives a request's units back once its status shows it
 * does not count.
 */
public final class RateLimitInterceptor implements HandlerInterceptor {
    /** The request attribute holding the verdicts the request was let through with. */
    public static final String VERDICTS = RateLimitInterceptor.class.getName() + ".verdicts";

    private final RequestGuard guard;
    private final RateLimitedHandlers handlers;
    private final ServletRejectionHandler rejection;
    private final int ipv6Subnet;

    public RateLimitInterceptor(RequestGuard guard, RateLimitedHandlers handlers, ServletRejectionHandler rejection,
                                int ipv6Subnet) {
        this.guard = guard;
        this.handlers = handlers;
        this.rejection = rejection;
        this.ipv6Subnet = IpKeys.checkSubnet(ipv6Subnet);
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) throws Exception {
        if (!(handler instanceof HandlerMethod method)) {
            return true;
        }
        RateLimit annotation = RateLimitedHandlers.annotation(method.getMethod(), method.getBeanType());
        if (annotation == null) {
            return true;
        }
        RatePolicy policy = handlers.policy(annotation);
        String key = key(request, method, handlers.keyExpression(annotation));
        if (key == null) {
            return true;
        }
        Verdict verdict = guard.decideNow(policy, key);
        if (verdict.unavailable()) {
            ServletRejectionHandler.text(response, 503, "rate limiter unavailable");
            return false;
        }
        addFields(response, verdict.headers(), policy.style());
        if (verdict.rejected()) {
            rejection.reject(request, response, verdict.decision());
            return false;
        }
        verdicts(request).add(verdict);
        return true;
    }

    private String key(HttpServletRequest request, HandlerMethod method, String expression) {
        if (expression == null) {
            String address = request.getRemoteAddr();
            return address == null ? null : IpKeys.ipKey(address, ipv6Subnet);
        }
        @SuppressWarnings("unchecked")
        Map<String, String> path = (Map<String, String>) request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE);
        Map<String, String> variables = path == null ? Collections.emptyMap() : path;
        return handlers.keys().key(method.getMethod(), expression, request, new KeyExpressions.Arguments() {
            @Override
            public String pathVariable(String name) {
                return variables.get(name);
            }

            @Override
            public String header(String name) {
                return request.getHeader(name);
            }

            @Override
            public String parameter(String name) {
                return request.getParameter(name);
            }
        });
    }

    /** Puts {@code added} on the response, merged with the fields another limit put there. */
    static void addFields(HttpServletResponse response, Map<String, String> added, HeaderStyle style) {
        Map<String, String> on = new LinkedHashMap<>();
        for (String name : HeaderStyle.FIELDS) {
            String value = response.getHeader(name);
            if (value != null) {
                on.put(name, value);
            }
        }
        style.merged(on, added).forEach(response::setHeader);
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
