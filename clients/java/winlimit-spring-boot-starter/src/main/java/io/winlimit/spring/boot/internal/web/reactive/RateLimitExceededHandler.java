package io.winlimit.spring.boot.internal.web.reactive;

import io.winlimit.spring.boot.web.reactive.ReactiveRejectionHandler;

import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;

import io.winlimit.spring.boot.RateLimitExceededException;
import reactor.core.publisher.Mono;

/** Answers a {@link RateLimitExceededException} a handler signalled as a rejection: its
 * fields, Retry-After, and the {@link ReactiveRejectionHandler}'s response (429). Ordered
 * before Boot's error handler. */
public final class RateLimitExceededHandler implements WebExceptionHandler, Ordered {
    private final ReactiveRejectionHandler rejection;

    /**
     * A handler answering as {@code rejection} does.
     *
     * @param rejection how a rejection is answered
     */
    public RateLimitExceededHandler(ReactiveRejectionHandler rejection) {
        this.rejection = rejection;
    }

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
        if (!(ex instanceof RateLimitExceededException exceeded) || exchange.getResponse().isCommitted()) {
            return Mono.error(ex);
        }
        exceeded.headers().forEach(exchange.getResponse().getHeaders()::set);
        return rejection.reject(exchange, exceeded.decision());
    }

    @Override
    public int getOrder() {
        return -2;
    }
}
