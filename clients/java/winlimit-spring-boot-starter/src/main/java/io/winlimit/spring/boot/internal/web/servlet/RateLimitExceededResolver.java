package io.winlimit.spring.boot.internal.web.servlet;

import io.winlimit.spring.boot.web.servlet.ServletRejectionHandler;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.Ordered;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

import io.winlimit.spring.boot.RateLimitExceededException;
import io.winlimit.spring.boot.web.RateLimiterUnavailableException;

/** Answers a {@link RateLimitExceededException} (a @RateLimit's rejection, or a handler's own
 * from {@code RateLimits.check}) as a rejection: its fields, Retry-After, and the
 * {@link ServletRejectionHandler}'s response (429); and a {@link RateLimiterUnavailableException}
 * 503 "rate limiter unavailable". First of the resolvers, so an application's catch-all
 * {@code @ExceptionHandler} never turns a rejection into its own answer. */
public final class RateLimitExceededResolver implements HandlerExceptionResolver, Ordered {
    private final ServletRejectionHandler rejection;

    /**
     * A resolver answering as {@code rejection} does.
     *
     * @param rejection how a rejection is answered
     */
    public RateLimitExceededResolver(ServletRejectionHandler rejection) {
        this.rejection = rejection;
    }

    @Override
    public ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response, Object handler, Exception ex) {
        if (response.isCommitted()) {
            return null;
        }
        try {
            if (ex instanceof RateLimitExceededException exceeded) {
                exceeded.headers().forEach(response::setHeader);
                rejection.reject(request, response, exceeded.decision());
                return new ModelAndView();
            }
            if (ex instanceof RateLimiterUnavailableException) {
                ServletRejectionHandler.text(response, 503, "rate limiter unavailable");
                return new ModelAndView();
            }
        } catch (java.io.IOException e) {
            return null;
        }
        return null;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
