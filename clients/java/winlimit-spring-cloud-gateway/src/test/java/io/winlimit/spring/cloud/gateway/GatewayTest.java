package io.winlimit.spring.cloud.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import com.sun.net.httpserver.HttpServer;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import io.winlimit.spring.boot.support.RedisServer;

/**
 * A real Spring Cloud Gateway application on a free loopback port, routing to a real backend on
 * loopback, limited by winlimit over a real redis-server with the module, driven by a real HTTP
 * client. The last test stops the server.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GatewayTest {
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class GatewayApp {}

    private final HttpClient client = HttpClient.newHttpClient();
    private RedisServer redis;
    private HttpServer backend;
    private ConfigurableApplicationContext gateway;
    private String base;

    @BeforeAll
    void start() throws IOException {
        redis = RedisServer.start();
        backend = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        backend.createContext("/", exchange -> {
            byte[] body = "backend".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        backend.start();
        gateway = start(redis.port());
        base = "http://127.0.0.1:" + gateway.getEnvironment().getProperty("local.server.port");
    }

    private ConfigurableApplicationContext start(int redisPort, String... more) {
        return new SpringApplicationBuilder(GatewayApp.class).web(WebApplicationType.REACTIVE)
                .properties("server.port=0", "server.address=127.0.0.1", "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redisPort, "backend.port=" + backend.getAddress().getPort(),
                        "spring.main.banner-mode=off")
                .properties(more).run();
    }

    @AfterAll
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        if (backend != null) {
            backend.stop(0);
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void aPerMinuteRouteAnswersWithTheFieldsThen429WithRetryAfter() {
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> passed = get("/minute/a");
            assertEquals(200, passed.statusCode());
            assertEquals("backend", passed.body());
            assertEquals("\"winlimit\";q=2;w=60", header(passed, "RateLimit-Policy"));
            assertEquals("\"winlimit\";r=" + (1 - i) + ";t=60", header(passed, "RateLimit"));
        }
        HttpResponse<String> refused = get("/minute/a");
        assertEquals(429, refused.statusCode());
        long retryAfter = Long.parseLong(header(refused, "Retry-After"));
        assertTrue(retryAfter >= 1 && retryAfter <= 60, "Retry-After " + retryAfter);
        assertEquals("\"winlimit\";r=0;t=" + retryAfter, header(refused, "RateLimit"));
    }

    @Test
    void aRouteWithAPerMinuteAndAPerHourLimitChecksBothAtOnceUnderItsOwnKey() {
        HttpResponse<String> first = get("/hourly/b");
        assertEquals(200, first.statusCode());
        assertEquals("\"winlimit-60s\";q=3;w=60, \"winlimit-3600s\";q=4;w=3600", header(first, "RateLimit-Policy"));
        assertEquals("\"winlimit-60s\";r=2;t=60", header(first, "RateLimit"));
        get("/hourly/b");
        get("/hourly/b");
        HttpResponse<String> fourth = get("/hourly/b");
        assertEquals(429, fourth.statusCode());
        assertTrue(header(fourth, "Retry-After") != null);
        assertEquals(":1", redis.command("EXISTS", "rl:hourly:127.0.0.1"));
    }

    @Test
    void aRouteCostsItsCostPerRequest() {
        assertEquals(200, get("/heavy/c").statusCode());
        HttpResponse<String> second = get("/heavy/c");
        assertEquals(200, second.statusCode());
        assertEquals("\"winlimit\";r=0;t=60", header(second, "RateLimit"));
        assertEquals(429, get("/heavy/c").statusCode());
    }

    @Test
    void aBadRouteConfigurationStopsTheStart() {
        Exception refused = assertThrows(Exception.class, () -> start(redis.port(),
                "spring.profiles.active=badroute"));
        String all = chain(refused);
        assertTrue(all.contains("route minute: winlimit-rate-limiter.windows[0].limit must be from 0 to 10^12, not -1"), all);
    }

    @Test
    void aSlideRouteAboveTheServersMaxLimitStopsTheStartNamingTheSetting() {
        String all = chain(assertThrows(Exception.class, () -> start(redis.port(), "spring.profiles.active=hugeroute")));
        assertTrue(all.contains("route huge: winlimit-rate-limiter.windows[0].limit 100000 is above the server's "
                + "winlimit.max-limit (10000)"), all);
    }

    @Test
    void aSlideRouteAboveTheMaxLimitWithABucketIsServed() {
        HttpResponse<String> passed = get("/bucketed/e");
        assertEquals(200, passed.statusCode());
        assertEquals("\"winlimit\";q=100000;w=1", header(passed, "RateLimit-Policy"));
        // The reset is the bucketed log's: the window, rounded up to the buckets it spans.
        assertTrue(header(passed, "RateLimit").startsWith("\"winlimit\";r=99999;t="), header(passed, "RateLimit"));
    }

    @Test
    void anOptionWrittenWithoutThePrefixStopsTheStartNamingIt() {
        String all = chain(assertThrows(Exception.class, () -> start(redis.port(), "spring.profiles.active=unprefixed")));
        assertTrue(all.contains("route open: the RequestRateLimiter argument fail-open is winlimit's and is read only "
                + "with its prefix: write winlimit-rate-limiter.fail-open"), all);
    }

    @Test
    void anUnknownArgumentUnderThePrefixStopsTheStartNamingIt() {
        String all = chain(assertThrows(Exception.class, () -> start(redis.port(), "spring.profiles.active=unknownarg")));
        assertTrue(all.contains("route open: winlimit-rate-limiter.fail-opn is not an option of winlimit's rate limiter"), all);
    }

    @Test
    @Order(Integer.MAX_VALUE)
    void withTheServerStoppedItFailsClosedWith503OrOpenByOption() {
        assertEquals(200, get("/open/d").statusCode());
        redis.close();
        assertEquals(503, get("/minute/d").statusCode());
        HttpResponse<String> open = get("/open/d");
        assertEquals(200, open.statusCode());
        assertEquals("backend", open.body());
        assertEquals(null, header(open, "RateLimit"));
    }

    private HttpResponse<String> get(String path) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).GET().build();
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String header(HttpResponse<String> response, String name) {
        return response.headers().firstValue(name).orElse(null);
    }

    private static String chain(Throwable error) {
        StringBuilder out = new StringBuilder();
        for (Throwable t = error; t != null; t = t.getCause()) {
            out.append(t).append('\n');
        }
        return out.toString();
    }
}
