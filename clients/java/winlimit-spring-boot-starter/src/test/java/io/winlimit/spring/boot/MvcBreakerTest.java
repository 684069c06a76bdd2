package io.winlimit.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.winlimit.breaker.BreakerOptions;
import io.winlimit.spring.boot.app.TestApp;
import io.winlimit.spring.boot.support.Http;
import io.winlimit.spring.boot.support.RedisServer;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The starter in a real Spring MVC app (Tomcat, a real HTTP client) whose redis-server is
 * stopped by its PID: each check waits the timeout until the breaker's failures open it; from
 * then on a request is answered without a call to Redis: 503 at once, or the memory fallback's
 * decision with {@code winlimit.fallback: memory}. The breaker stays open far longer than the
 * test runs ({@code winlimit.breaker-open}), so every later request falls in its open period;
 * that nothing was sent is counted in the breaker's own transitions (no probe, so no half-open).
 */
class MvcBreakerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final Duration OPEN = Duration.ofHours(1);
    private static final int SETUP_ATTEMPTS = 5;
    private static final Pattern REMAINING = Pattern.compile("\\br=(\\d+)");

    private RedisServer redis;
    private ConfigurableApplicationContext app;
    private Http http;

    /**
     * Starts the app, sees Redis answer once, then stops Redis. That first call is no claim
     * about speed, yet a fresh app on a loaded machine can overrun the short timeout with it,
     * a failure the breaker would count: then the app and its server start again from scratch.
     */
    private void start(String fallback) {
        for (int attempt = 1; ; attempt++) {
            redis = RedisServer.start();
            app = TestApp.start(WebApplicationType.SERVLET, redis.port(), "winlimit.timeout=" + TIMEOUT.toMillis() + "ms",
                    "winlimit.breaker-open=" + OPEN.toSeconds() + "s", "winlimit.fallback=" + fallback);
            http = new Http(Integer.parseInt(app.getEnvironment().getProperty("local.server.port")));
            int status = http.get("/closed").statusCode();
            if (status == 200) {
                break;
            }
            stop();
            assertTrue(attempt < SETUP_ATTEMPTS, "Redis never answered the first call within " + TIMEOUT + " in "
                    + SETUP_ATTEMPTS + " starts, the last answered " + status);
            System.out.println("MvcBreakerTest: the first call of start " + attempt + " answered " + status + "; again");
        }
        redis.close(); // SIGTERM to its PID, and waits for the exit
    }

    @AfterEach
    void stop() {
        if (app != null) {
            app.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    /** Sends the failing checks that open the breaker: each waited the timeout for Redis. */
    private void failUntilOpen() {
        for (int i = 1; i <= BreakerOptions.DEFAULT_FAILURES; i++) {
            long started = System.nanoTime();
            http.get("/closed");
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertTrue(took.compareTo(TIMEOUT) >= 0, "failure " + i + " waited the timeout, took " + took);
            assertEquals(i == BreakerOptions.DEFAULT_FAILURES ? 1.0 : 0.0, count("winlimit.breaker.transitions", "to:open&tag=cause:failures"),
                    "the breaker opens at failure " + BreakerOptions.DEFAULT_FAILURES + ", not before");
        }
    }

    /** A request while the breaker is open: answered before the timeout could have passed, and
     * no probe was sent (the breaker never went half-open). */
    private HttpResponse<String> whileOpen() {
        long started = System.nanoTime();
        HttpResponse<String> response = http.get("/closed");
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertTrue(took.compareTo(TIMEOUT) < 0, "answered without waiting the timeout " + TIMEOUT + ", took " + took);
        assertEquals(0.0, count("winlimit.breaker.transitions", "to:half_open"), "no call went to Redis");
        assertEquals(2.0, count("winlimit.breaker.state", "limiter:winlimit"), "still open");
        return response;
    }

    @Test
    void withoutAFallbackTheOpenBreakerFailsClosedAtOnce() {
        start("none");
        failUntilOpen();
        double errors = count("winlimit.decisions", "policy:closed&tag=outcome:error");
        for (int i = 1; i <= 3; i++) {
            HttpResponse<String> refused = whileOpen();
            assertEquals(503, refused.statusCode());
            assertEquals("rate limiter unavailable", refused.body());
            assertEquals(Map.of(), AbstractWebTest.fields(refused));
            assertEquals(errors + i, count("winlimit.decisions", "policy:closed&tag=outcome:error"));
        }
    }

    @Test
    void withTheMemoryFallbackTheOpenBreakerLetsMemoryDecideAtOnce() {
        start("memory");
        failUntilOpen();
        double fallbacks = count("winlimit.decisions", "policy:closed&tag=outcome:fallback");
        long remaining = Long.MAX_VALUE;
        for (int i = 1; remaining > 0; i++) {
            HttpResponse<String> decided = whileOpen();
            assertEquals(200, decided.statusCode(), decided.body());
            long now = remaining(decided);
            assertTrue(now < remaining, "the memory limiter counts each request: " + now + " after " + remaining);
            remaining = now;
            assertEquals(fallbacks + i, count("winlimit.decisions", "policy:closed&tag=outcome:fallback"));
        }
        HttpResponse<String> rejected = whileOpen();
        assertEquals(429, rejected.statusCode(), "the memory limiter's limit is the policy's");
        assertTrue(rejected.headers().firstValue("Retry-After").isPresent());
    }

    private static long remaining(HttpResponse<String> response) {
        String field = response.headers().firstValue("RateLimit").orElseThrow(() -> new AssertionError("no RateLimit field"));
        Matcher m = REMAINING.matcher(field);
        assertTrue(m.find(), field);
        return Long.parseLong(m.group(1));
    }

    /** A meter's value through actuator (0 when it has not been made yet). */
    private double count(String name, String tags) {
        HttpResponse<String> response = http.get("/actuator/metrics/" + name + "?tag=" + tags);
        if (response.statusCode() == 404) {
            return 0;
        }
        assertEquals(200, response.statusCode(), response.body());
        try {
            JsonNode metric = JSON.readTree(response.body());
            return metric.path("measurements").get(0).path("value").asDouble();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
