package io.winlimit.spring.boot.web.servlet;

import io.winlimit.model.Decision;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The response to a rejected request on Spring MVC. The rate-limit fields and Retry-After are
 * on the response already; the default answers 429 "Too Many Requests". Declare a bean of this
 * type to answer otherwise (a JSON body, another status).
 */
@FunctionalInterface
public interface ServletRejectionHandler {

    /**
     * Answers a rejected request, on the request's thread.
     *
     * @param request the request
     * @param response its response, which has the fields already
     * @param decision the rejection
     * @throws IOException if the response cannot be written
     */
    void reject(HttpServletRequest request, HttpServletResponse response, Decision decision) throws IOException;

    /** 429 with the text "Too Many Requests". */
    ServletRejectionHandler DEFAULT = (request, response, decision) -> text(response, 429, "Too Many Requests");

    /**
     * Answers {@code status} with a short plain text.
     *
     * @param response the response
     * @param status the HTTP status
     * @param text the body, sent as UTF-8 text/plain
     * @throws IOException if the response cannot be written
     */
    static void text(HttpServletResponse response, int status, String text) throws IOException {
        response.setStatus(status);
        response.setContentType("text/plain;charset=UTF-8");
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
        response.flushBuffer();
    }
}
