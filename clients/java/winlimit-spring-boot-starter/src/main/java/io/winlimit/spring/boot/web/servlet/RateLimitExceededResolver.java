package io.winlimit.spring.boot.web.servlet;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.Ordered;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

import io.winlimit.spring.boot.RateLimitExceededException;

/** Answers a {@link RateLimitExceededException} a handler threw as a rejection: its fields,
 * Retry-After, and the {@link ServletRejectionHandler}'s response (429). */
public final class RateLimitExceededResolver implements HandlerExceptionResolver, Ordered {
    private final ServletRejectionHandler rejection;

    public RateLimitExceededResolver(ServletRejectionHandler rejection) {
        this.rejection = rejection;
    }

    @Override
    public ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response, Object handler, Exception ex) {
        if (!(ex instanceof RateLimitExceededException exceeded) || response.isCommitted()) {
            return null;
        }
        exceeded.headers().forEach(response::setHeader);
        try {
            rejection.reject(request, response, exceeded.decision());
        } catch (java.io.IOException e) {
            return null;
        }
        return new ModelAndView();
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
