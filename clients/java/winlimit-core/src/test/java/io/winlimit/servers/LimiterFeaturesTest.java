package io.winlimit.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.ClientOptions;
import io.winlimit.Limiter;
import io.winlimit.LimiterConfig;
import io.winlimit.lettuce.WinlimitLettuce;
import io.winlimit.model.Decision;
import io.winlimit.model.FixedOptions;
import io.winlimit.model.GcraOptions;
import io.winlimit.support.CallDeadline;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The limiter's own features on a real server: waiting until allowed, the rejection cache, the
 * limiter's BLOCK, and what Lettuce's options mean for exactness. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LimiterFeaturesTest {
    private static final Duration W = Duration.ofMinutes(1);
    private RedisServer server;
    private final Adapters adapters = new Adapters();

    @BeforeAll
    void start() throws Exception {
        server = new RedisServer("redis-7.0", true);
    }

    @AfterAll
    void stop() {
        adapters.close();
        server.close();
    }

    private Limiter limiter(LimiterConfig config) {
        return WinlimitLettuce.limiter(adapters.lettuce(server.port()), config);
    }

    private static String key() {
        return "features:" + UUID.randomUUID();
    }

    private long callsOf(String command) throws Exception {
        for (String line : String.valueOf(server.call("INFO", "commandstats")).split("\r\n")) {
            if (line.startsWith("cmdstat_" + command + ":calls=")) {
                return Long.parseLong(line.substring(("cmdstat_" + command + ":calls=").length()).split(",")[0]);
            }
        }
        return 0;
    }

    @Test
    void aWaitingCallSleepsTheRetryAndIsThenAccepted() {
        Limiter limiter = limiter(CallDeadline.config());
        String key = key();
        GcraOptions oneAt = GcraOptions.defaults();
        assertTrue(limiter.gcra(key, Duration.ofMillis(200), 1, oneAt).allowed());
        Decision waited = limiter.gcra(key, Duration.ofMillis(200), 1, oneAt.waitUpTo(Duration.ofSeconds(30)));
        assertTrue(waited.allowed(), waited.toString());
        assertTrue(waited.waitedMs() > 0, waited.toString());
    }

    @Test
    void aWaitShorterThanTheRetryReturnsTheRejectionAtOnce() {
        Limiter limiter = limiter(CallDeadline.config());
        String key = key();
        assertTrue(limiter.fixed(key, W, 1).allowed());
        Decision d = limiter.fixed(key, W, 1, FixedOptions.defaults().waitUpTo(Duration.ofSeconds(1)));
        assertFalse(d.allowed());
        assertTrue(d.retryAfterMs() > 1000, d.toString());
        assertEquals(0, d.waitedMs());
    }

    @Test
    void aCachedRejectionIsAnsweredWithoutRedisUntilTheKeyIsReset() throws Exception {
        Limiter limiter = limiter(CallDeadline.config().cacheRejections(true));
        String key = key();
        assertTrue(limiter.fixed(key, W, 1).allowed());
        Decision fromRedis = limiter.fixed(key, W, 1);
        assertFalse(fromRedis.allowed());
        assertFalse(fromRedis.cached());
        long sent = callsOf("winlimit.fixed");
        Decision cached = limiter.fixed(key, W, 1);
        assertTrue(cached.cached());
        assertFalse(cached.allowed());
        assertTrue(cached.retryAfterMs() <= fromRedis.retryAfterMs(), cached + " after " + fromRedis);
        assertEquals(sent, callsOf("winlimit.fixed"), "nothing sent");
        assertTrue(limiter.reset(key));
        assertTrue(limiter.fixed(key, W, 1).allowed());
    }

    @Test
    void theLimitersBlockHoldsARejectedKeyButNotAPeek() {
        Limiter limiter = limiter(CallDeadline.config().block(Duration.ofMinutes(10)));
        String key = key();
        assertTrue(limiter.fixed(key, Duration.ofSeconds(1), 1).allowed());
        Decision peek = limiter.fixed(key, Duration.ofSeconds(1), 1, FixedOptions.defaults().peek(true));
        assertTrue(peek.retryAfterMs() <= 1000, "a peek blocks nothing: " + peek);
        Decision blocked = limiter.fixed(key, Duration.ofSeconds(1), 1);
        assertTrue(blocked.retryAfterMs() > 60_000, blocked.toString());
    }

    @Test
    void aMonoSendsNothingUntilSubscribedAndOnEachSubscription() throws Exception {
        io.winlimit.ReactiveLimiter limiter = WinlimitLettuce.reactiveLimiter(adapters.lettuce(server.port()));
        String key = key();
        reactor.core.publisher.Mono<Decision> call = limiter.fixed(key, W, 5);
        assertEquals(0L, server.call("EXISTS", key));
        assertEquals(4, call.block().remaining());
        assertEquals(3, call.block().remaining());
    }

    @Test
    void theBackendIsDetectedOncePerServer() throws Exception {
        long before = callsOf("command|info");
        Limiter limiter = limiter(CallDeadline.config());
        for (int i = 0; i < 5; i++) {
            limiter.slide(key(), W, 5);
        }
        assertEquals(before + 1, callsOf("command|info"));
    }

    @Test
    void badConfigIsRefusedWhenMade() {
        assertThrows(IllegalArgumentException.class, () -> LimiterConfig.defaults().timeout(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> LimiterConfig.defaults().cacheSize(0));
        assertThrows(IllegalArgumentException.class, () -> LimiterConfig.defaults().block(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> io.winlimit.model.BackendChoice.of("lua"));
    }

    @Test
    void lettucesOptionsAreExplainedForExactness() {
        assertTrue(WinlimitLettuce.reliability(ClientOptions.create()).contains("never sent later"));
        assertTrue(WinlimitLettuce.reliability(ClientOptions.builder().autoReconnect(false).build()).contains("fails at once"));
        assertTrue(WinlimitLettuce.reliability(ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build()).contains("rejected"));
    }
}
