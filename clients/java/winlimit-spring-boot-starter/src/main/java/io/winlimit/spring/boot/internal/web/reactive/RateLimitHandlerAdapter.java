package io.winlimit.spring.boot.internal.web.reactive;

import io.winlimit.spring.boot.web.reactive.ReactiveRejectionHandler;

import io.winlimit.internal.http.IpKeys;
import io.winlimit.spring.boot.internal.web.RateLimitedHandlers;
import io.winlimit.spring.boot.internal.web.RequestGuard;
import io.winlimit.spring.boot.internal.web.Verdict;
import java.lang.reflect.InvocationTargetException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.core.Ordered;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.HandlerAdapter;
import org.springframework.web.reactive.HandlerResult;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerAdapter;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Limits the requests of @RateLimit handler methods on WebFlux, over the arguments Spring
 * resolved, without blocking. Spring's own {@link RequestMappingHandlerAdapter} resolves the
 * arguments (body, principal, path variables, conversion, validation) and calls a stand-in
 * that keeps them (see {@link StandIns}); the keys are evaluated over them and the limits
 * decided as a Mono; then the controller itself is called with the same arguments, and Spring
 * handles what it returns, or an accepted request's error, as it would have. A rejected
 * request never reaches the controller: it is answered by the {@link ReactiveRejectionHandler}
 * (429) with the fields of every policy decided, or 503 when Redis fails and the policy fails
 * closed. A request that does not count gets its units back before its response is committed.
 */
public final class RateLimitHandlerAdapter implements HandlerAdapter, Ordered {
    private static final ReactiveAdapterRegistry REACTIVE = ReactiveAdapterRegistry.getSharedInstance();

    private final Supplier<RequestMappingHandlerAdapter> spring;
    private final RequestGuard guard;
    private final RateLimitedHandlers handlers;
    private final ReactiveRejectionHandler rejection;
    private final int ipv6Subnet;
    private final StandIns standIns = new StandIns();

    /**
     * An adapter that checks a handler's limits, then hands the request to Spring's own.
     *
     * @param spring Spring's adapter, looked up on the first request
     * @param guard the request guard
     * @param handlers the rate-limited handlers
     * @param rejection how a rejection is answered
     * @param ipv6Subnet the bits of an IPv6 client address that make its default key
     */
    public RateLimitHandlerAdapter(Supplier<RequestMappingHandlerAdapter> spring, RequestGuard guard,
                                   RateLimitedHandlers handlers, ReactiveRejectionHandler rejection, int ipv6Subnet) {
        this.spring = spring;
        this.guard = guard;
        this.handlers = handlers;
        this.rejection = rejection;
        this.ipv6Subnet = IpKeys.checkSubnet(ipv6Subnet);
    }

    /** Before Spring's adapter, which takes every handler method. */
    @Override
    public int getOrder() {
        return 0;
    }

    @Override
    public boolean supports(Object handler) {
        return handler instanceof HandlerMethod method && !handlers.limits(method.getMethod(), method.getBeanType()).isEmpty();
    }

    @Override
    public Mono<HandlerResult> handle(ServerWebExchange exchange, Object handler) {
        HandlerMethod method = (HandlerMethod) handler;
        StandIns.Captured captured = new StandIns.Captured(method.getMethod());
        HandlerMethod standIn = new HandlerMethod(standIns.of(method.getBean(), captured), method.getMethod());
        return spring.get().handle(exchange, standIn)
                .map(Optional::of)
                .defaultIfEmpty(Optional.empty())
                .flatMap(placeholder -> captured.arguments() == null ? Mono.justOrEmpty(placeholder)
                        : limited(exchange, method, captured.arguments(), placeholder.orElse(null)));
    }

    private Mono<HandlerResult> limited(ServerWebExchange exchange, HandlerMethod method, Object[] arguments,
                                        HandlerResult placeholder) {
        // Subscribed on the caller's thread: the limiter dispatches on Lettuce's async API and
        // never blocks. The controller then runs on Reactor's parallel threads, not on Lettuce's
        // I/O thread: a handler that blocks there would stall every Redis reply of the application.
        return Mono.fromFuture(() -> guard.decideAll(handlers.checks(method.getMethod(), method.getBeanType(),
                        exchange.getRequest(), arguments, request -> address((ServerHttpRequest) request))))
                .publishOn(Schedulers.parallel())
                .flatMap(verdicts -> {
                    Mono<Void> refused = refusal(exchange, verdicts);
                    // An answered request gives the dispatcher no result to handle.
                    return refused != null ? refused.then(Mono.empty()) : invoke(exchange, method, arguments, placeholder);
                });
    }

    /** Puts the fields on the response; the answer to a request that does not pass, or null. */
    private Mono<Void> refusal(ServerWebExchange exchange, List<Verdict> verdicts) {
        RequestGuard.fields(verdicts).forEach(exchange.getResponse().getHeaders()::set);
        for (Verdict verdict : verdicts) {
            if (verdict.unavailable()) {
                return ReactiveRejectionHandler.text(exchange.getResponse(), 503, "rate limiter unavailable");
            }
            if (verdict.rejected()) {
                return rejection.reject(exchange, verdict.decision());
            }
            exchange.getResponse().beforeCommit(() -> Mono.fromFuture(() -> guard.settle(verdict, status(exchange))));
        }
        return null;
    }

    private Mono<HandlerResult> invoke(ServerWebExchange exchange, HandlerMethod method, Object[] arguments,
                                       HandlerResult placeholder) {
        Object value;
        try {
            ReflectionUtils.makeAccessible(method.getMethod());
            value = method.getMethod().invoke(method.getBean(), arguments);
        } catch (InvocationTargetException e) {
            return spring.get().handleError(exchange, e.getTargetException());
        } catch (IllegalAccessException e) {
            return Mono.error(new IllegalStateException("cannot call " + method, e));
        }
        if (placeholder == null) {
            // Spring saw that the handler answers the response itself (a void or Mono<Void>
            // method given the response): only what it returns is waited for.
            ReactiveAdapter adapter = value == null ? null : REACTIVE.getAdapter(value.getClass());
            return adapter == null ? Mono.empty() : Mono.from(adapter.toPublisher(value)).then(Mono.empty());
        }
        return Mono.just(new HandlerResult(method, value, placeholder.getReturnTypeSource(), placeholder.getBindingContext())
                .setExceptionHandler(spring.get()));
    }

    private String address(ServerHttpRequest request) {
        InetSocketAddress remote = request.getRemoteAddress();
        if (remote == null) {
            return null;
        }
        String address = remote.getAddress() != null ? remote.getAddress().getHostAddress() : remote.getHostString();
        return IpKeys.ipKey(address, ipv6Subnet);
    }

    private static Integer status(ServerWebExchange exchange) {
        var code = exchange.getResponse().getStatusCode();
        return code == null ? 200 : code.value();
    }
}
