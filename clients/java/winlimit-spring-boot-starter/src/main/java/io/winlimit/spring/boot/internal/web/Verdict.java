package io.winlimit.spring.boot.internal.web;

import io.winlimit.model.Decision;
import io.winlimit.spring.boot.RatePolicy;
import java.util.Map;

/**
 * What a web request gets from its check: let through with {@code headers} added (200), or
 * answered 429 with them, or 503 (Redis failed and the policy fails closed). {@code decision}
 * is null when Redis failed.
 */
public record Verdict(int status, Map<String, String> headers, Decision decision, RatePolicy policy, String key) {

    /**
     * Whether the request goes on to its handler.
     *
     * @return true for status 200
     */
    public boolean passes() {
        return status == 200;
    }

    /**
     * Whether the request is over a limit.
     *
     * @return true for status 429
     */
    public boolean rejected() {
        return status == 429;
    }

    /**
     * Whether Redis failed and the policy fails closed.
     *
     * @return true for status 503
     */
    public boolean unavailable() {
        return status == 503;
    }
}
