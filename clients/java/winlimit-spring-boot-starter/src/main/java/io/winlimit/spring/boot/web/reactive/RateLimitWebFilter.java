package io.winlimit.spring.boot.web.reactive;

import io.winlimit.http.IpKeys;
import io.winlimit.model.HeaderStyle;
import io.winlimit.spring.boot.RatePolicy;
import io.winlimit.spring.boot.annotation.RateLimit;
import io.winlimit.spring.boot.web.KeyExpressions;
import io.winlimit.spring.boot.web.RateLimitedHandlers;
import io.winlimit.spring.boot.web.RequestGuard;
import io.winlimit.spring.boot.web.Verdict;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Limits the requests of @RateLimit handler methods on WebFlux, as the servlet interceptor does,
 * without blocking: the handler is looked up by the application's annotated-controller
 * mapping, the check waits on Redis's answer as a Mono, and a request that does not count
 * gets its units back before its response is committed.
 */
public final class RateLimitWebFilter implements WebFilter, Ordered {
    private final HandlerMapping mapping;
    private final RequestGuard guard;
    private final RateLimitedHandlers handlers;
    private final ReactiveRejectionHandler rejection;
    private final int ipv6Subnet;

    public RateLimitWebFilter(HandlerMapping mapping, RequestGuard guard, RateLimitedHandlers handlers,
                              ReactiveRejectionHandler rejection, int ipv6Subnet) {
        this.mapping = mapping;
        this.guard = guard;
        this.handlers = handlers;
        this.rejection = rejection;
        this.ipv6Subnet = IpKeys.checkSubnet(ipv6Subnet);
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 100;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        // A request no handler matches (404, 405) passes on: the dispatcher answers it.
        return mapping.getHandler(exchange)
                .onErrorResume(e -> Mono.empty())
                .filter(HandlerMethod.class::isInstance)
                .cast(HandlerMethod.class)
                .flatMap(method -> limited(exchange, chain, method).thenReturn(true))
                .switchIfEmpty(Mono.defer(() -> chain.filter(exchange).thenReturn(true)))
                .then();
    }

    private Mono<Void> limited(ServerWebExchange exchange, WebFilterChain chain, HandlerMethod method) {
        RateLimit annotation = RateLimitedHandlers.annotation(method.getMethod(), method.getBeanType());
        if (annotation == null) {
            return chain.filter(exchange);
        }
        RatePolicy policy = handlers.policy(annotation);
        String key = key(exchange, method, handlers.keyExpression(annotation));
        if (key == null) {
            return chain.filter(exchange);
        }
        // Subscribed on the caller's thread: the limiter dispatches on Lettuce's async API and
        // never blocks, so nothing needs boundedElastic. The application's handler then runs on
        // Reactor's parallel threads, not on Lettuce's I/O thread: a handler that blocks there
        // would stall every Redis reply of the application (seen as requests hanging on Tomcat).
        return Mono.fromFuture(() -> guard.decide(policy, key)).publishOn(Schedulers.parallel())
                .flatMap(verdict -> answer(exchange, chain, verdict));
    }

    private Mono<Void> answer(ServerWebExchange exchange, WebFilterChain chain, Verdict verdict) {
        if (verdict.unavailable()) {
            return ReactiveRejectionHandler.text(exchange.getResponse(), 503, "rate limiter unavailable");
        }
        addFields(exchange.getResponse().getHeaders(), verdict.headers(), verdict.policy().style());
        if (verdict.rejected()) {
            return rejection.reject(exchange, verdict.decision());
        }
        exchange.getResponse().beforeCommit(() -> Mono.fromFuture(() -> guard.settle(verdict, status(exchange))));
        return chain.filter(exchange);
    }

    private static Integer status(ServerWebExchange exchange) {
        var code = exchange.getResponse().getStatusCode();
        return code == null ? 200 : code.value();
    }

    private String key(ServerWebExchange exchange, HandlerMethod method, String expression) {
        ServerHttpRequest request = exchange.getRequest();
        if (expression == null) {
            InetSocketAddress remote = request.getRemoteAddress();
            if (remote == null) {
                return null;
            }
            String address = remote.getAddress() != null ? remote.getAddress().getHostAddress() : remote.getHostString();
            return IpKeys.ipKey(address, ipv6Subnet);
        }
        Map<String, String> path = exchange.getAttributeOrDefault(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE,
                Collections.<String, String>emptyMap());
        return handlers.keys().key(method.getMethod(), expression, request, new KeyExpressions.Arguments() {
            @Override
            public String pathVariable(String name) {
                return path.get(name);
            }

            @Override
            public String header(String name) {
                return request.getHeaders().getFirst(name);
            }

            @Override
            public String parameter(String name) {
                return request.getQueryParams().getFirst(name);
            }
        });
    }

    static void addFields(HttpHeaders headers, Map<String, String> added, HeaderStyle style) {
        Map<String, String> on = new LinkedHashMap<>();
        for (String name : HeaderStyle.FIELDS) {
            String value = headers.getFirst(name);
            if (value != null) {
                on.put(name, value);
            }
        }
        style.merged(on, added).forEach(headers::set);
    }
}
