package io.winlimit.spring.cloud.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.http.HttpResponse;

import com.sun.net.httpserver.HttpServer;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.context.ConfigurableApplicationContext;

import io.winlimit.spring.boot.support.Http;
import io.winlimit.spring.boot.support.RedisServer;
import io.winlimit.spring.boot.support.RejectWhileDisconnected;
import io.winlimit.support.CallDeadline;

/**
 * A real Spring Cloud Gateway application on a free loopback port, routing to a real backend on
 * loopback, limited by winlimit over a real redis-server with the module, driven by a real HTTP
 * client. No test here is about a timeout, so every call has the tests' {@link CallDeadline}; the
 * last test stops the server, which Lettuce then refuses at once ({@link RejectWhileDisconnected})
 * instead of holding each request for the deadline. (The starts that must fail are GatewayStartupCheckTest's:
 * on Boot 4 a failed start disposes Reactor Netty's global resources, this gateway's among them.)
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GatewayTest {
    private RedisServer redis;
    private HttpServer backend;
    private ConfigurableApplicationContext gateway;
    private Http http;

    @BeforeAll
    void start() throws IOException {
        redis = RedisServer.start();
        backend = GatewayApps.backend();
        gateway = GatewayApps.start(new Class<?>[] {GatewayApps.GatewayApp.class, RejectWhileDisconnected.class},
                redis.port(), backend.getAddress().getPort(), "winlimit.timeout=" + CallDeadline.TIMEOUT.toMillis() + "ms");
        http = new Http(Integer.parseInt(gateway.getEnvironment().getProperty("local.server.port")));
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
            HttpResponse<String> passed = http.get("/minute/a");
            assertEquals(200, passed.statusCode());
            assertEquals("backend", passed.body());
            assertEquals("\"winlimit\";q=2;w=60", header(passed, "RateLimit-Policy"));
            assertEquals("\"winlimit\";r=" + (1 - i) + ";t=60", header(passed, "RateLimit"));
        }
        HttpResponse<String> refused = http.get("/minute/a");
        assertEquals(429, refused.statusCode());
        long retryAfter = Long.parseLong(header(refused, "Retry-After"));
        assertTrue(retryAfter >= 1 && retryAfter <= 60, "Retry-After " + retryAfter);
        assertEquals("\"winlimit\";r=0;t=" + retryAfter, header(refused, "RateLimit"));
    }

    @Test
    void aRouteWithAPerMinuteAndAPerHourLimitChecksBothAtOnceUnderItsOwnKey() {
        HttpResponse<String> first = http.get("/hourly/b");
        assertEquals(200, first.statusCode());
        assertEquals("\"winlimit-60s\";q=3;w=60, \"winlimit-3600s\";q=4;w=3600", header(first, "RateLimit-Policy"));
        assertEquals("\"winlimit-60s\";r=2;t=60", header(first, "RateLimit"));
        http.get("/hourly/b");
        http.get("/hourly/b");
        HttpResponse<String> fourth = http.get("/hourly/b");
        assertEquals(429, fourth.statusCode());
        assertTrue(header(fourth, "Retry-After") != null);
        assertEquals(":1", redis.command("EXISTS", "rl:hourly:127.0.0.1"));
    }

    @Test
    void aRouteCostsItsCostPerRequest() {
        long started = System.nanoTime();
        assertEquals(200, http.get("/heavy/c").statusCode());
        HttpResponse<String> second = http.get("/heavy/c");
        long elapsedMs = (System.nanoTime() - started) / 1_000_000;
        assertEquals(200, second.statusCode());
        // The fixed window began at the first request: the reset is its 60 s less the time
        // between the two, which is at most the time both took here, rounded up.
        String fields = header(second, "RateLimit");
        assertTrue(fields.startsWith("\"winlimit\";r=0;t="), fields);
        long reset = Long.parseLong(fields.substring(fields.lastIndexOf('=') + 1));
        assertTrue(reset <= 60 && reset >= 60 - elapsedMs / 1000, fields + " after " + elapsedMs + " ms");
        assertEquals(429, http.get("/heavy/c").statusCode());
    }

    @Test
    void aSlideRouteAboveTheMaxLimitWithABucketIsServed() {
        HttpResponse<String> passed = http.get("/bucketed/e");
        assertEquals(200, passed.statusCode());
        assertEquals("\"winlimit\";q=100000;w=1", header(passed, "RateLimit-Policy"));
        // The reset is the bucketed log's: the window, rounded up to the buckets it spans.
        assertTrue(header(passed, "RateLimit").startsWith("\"winlimit\";r=99999;t="), header(passed, "RateLimit"));
    }

    @Test
    @Order(Integer.MAX_VALUE)
    void withTheServerStoppedItFailsClosedWith503OrOpenByOption() {
        assertEquals(200, http.get("/open/d").statusCode());
        redis.close();
        assertEquals(503, http.get("/minute/d").statusCode());
        HttpResponse<String> open = http.get("/open/d");
        assertEquals(200, open.statusCode());
        assertEquals("backend", open.body());
        assertEquals(null, header(open, "RateLimit"));
    }

    private static String header(HttpResponse<String> response, String name) {
        return response.headers().firstValue(name).orElse(null);
    }
}
