package io.winlimit.spring.boot.web.reactive;

import io.winlimit.model.Decision;
import java.nio.charset.StandardCharsets;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The response to a rejected request on WebFlux. The rate-limit fields and Retry-After are on
 * the response already; the default answers 429 "Too Many Requests". Declare a bean of this
 * type to answer otherwise.
 */
@FunctionalInterface
public interface ReactiveRejectionHandler {

    Mono<Void> reject(ServerWebExchange exchange, Decision decision);

    /** 429 with the text "Too Many Requests". */
    ReactiveRejectionHandler DEFAULT = (exchange, decision) -> text(exchange.getResponse(), 429, "Too Many Requests");

    /** Answers {@code status} with a short plain text. */
    static Mono<Void> text(ServerHttpResponse response, int status, String text) {
        response.setStatusCode(HttpStatusCode.valueOf(status));
        response.getHeaders().setContentType(new MediaType("text", "plain", StandardCharsets.UTF_8));
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
    }
}
