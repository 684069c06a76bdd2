package io.winlimit.spring.cloud.gateway;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;

import com.sun.net.httpserver.HttpServer;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import io.winlimit.spring.boot.support.RedisServer;

/** A route configuration the limiter cannot serve as written stops the gateway's start, with a
 * message naming the argument: each profile here (application-*.yml) is one such route. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GatewayStartupCheckTest {
    private RedisServer redis;
    private HttpServer backend;

    @BeforeAll
    void start() throws IOException {
        redis = RedisServer.start();
        backend = GatewayApps.backend();
    }

    @AfterAll
    void stop() {
        if (backend != null) {
            backend.stop(0);
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void aBadRouteConfigurationStopsTheStart() {
        assertRefused("badroute", "route minute: winlimit-rate-limiter.windows[0].limit must be from 0 to 10^12, not -1");
    }

    @Test
    void aSlideRouteAboveTheServersMaxLimitStopsTheStartNamingTheSetting() {
        assertRefused("hugeroute", "route huge: winlimit-rate-limiter.windows[0].limit 100000 is above the server's "
                + "winlimit.max-limit (10000)");
    }

    @Test
    void anOptionWrittenWithoutThePrefixStopsTheStartNamingIt() {
        assertRefused("unprefixed", "route open: the RequestRateLimiter argument fail-open is winlimit's and is read "
                + "only with its prefix: write winlimit-rate-limiter.fail-open");
    }

    @Test
    void anUnknownArgumentUnderThePrefixStopsTheStartNamingIt() {
        assertRefused("unknownarg", "route open: winlimit-rate-limiter.fail-opn is not an option of winlimit's rate limiter");
    }

    private void assertRefused(String profile, String message) {
        Exception refused = assertThrows(Exception.class, () -> GatewayApps.start(redis.port(),
                backend.getAddress().getPort(), "spring.profiles.active=" + profile));
        String all = GatewayApps.chain(refused);
        assertTrue(all.contains(message), all);
    }
}
