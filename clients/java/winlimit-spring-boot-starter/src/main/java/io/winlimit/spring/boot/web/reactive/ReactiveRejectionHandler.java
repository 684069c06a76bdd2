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

    /**
     * Answers a rejected request; called on the event loop, so it must not block.
     *
     * @param exchange the request and its response, which has the fields already
     * @param decision the rejection
     * @return completes when the response is written
     */
    Mono<Void> reject(ServerWebExchange exchange, Decision decision);

    /** 429 with the text "Too Many Requests". */
    ReactiveRejectionHandler DEFAULT = (exchange, decision) -> text(exchange.getResponse(), 429, "Too Many Requests");

    /**
     * Answers {@code status} with a short plain text.
     *
     * @param response the response
     * @param status the HTTP status
     * @param text the body, sent as UTF-8 text/plain
     * @return completes when the body is written
     */
    static Mono<Void> text(ServerHttpResponse response, int status, String text) {
        response.setStatusCode(HttpStatusCode.valueOf(status));
        response.getHeaders().setContentType(new MediaType("text", "plain", StandardCharsets.UTF_8));
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
    }
}
