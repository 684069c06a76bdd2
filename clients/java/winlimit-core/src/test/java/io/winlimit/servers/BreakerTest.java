package io.winlimit.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import io.winlimit.Limiter;
import io.winlimit.LimiterConfig;
import io.winlimit.breaker.BreakerOptions;
import io.winlimit.breaker.CircuitBreaker;
import io.winlimit.lettuce.WinlimitLettuce;
import io.winlimit.memory.MemoryLimiter;
import io.winlimit.model.Backend;
import io.winlimit.model.BreakerOpenException;
import io.winlimit.model.Decision;
import io.winlimit.model.RedisTimeoutException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The breaker on a real server that stops answering (SIGSTOP): it opens after 3 failures, no
 * call is sent while it is open (counted at the server), the fallback decides meanwhile, and one
 * probe closes it once the server answers again. The breaker runs on the test's clock. */
class BreakerTest {
    private static final Duration W = Duration.ofMinutes(1);
    private RedisServer server;
    private RedisClient client;
    private final double[] now = {0};

    @BeforeEach
    void start() throws Exception {
        server = new RedisServer("redis-7.0", true);
        client = RedisClient.create(RedisURI.create("127.0.0.1", server.port()));
    }

    @AfterEach
    void stop() throws Exception {
        server.resume();
        client.shutdown();
        server.close();
    }

    private Limiter limiter(LimiterConfig config) {
        return WinlimitLettuce.limiter(client.connect(StringCodec.UTF8), config.timeout(Duration.ofMillis(500))
                .breaker(BreakerOptions.defaults().withOpen(Duration.ofMillis(300))).breakerClock(() -> now[0]));
    }

    private long fixedCallsAtTheServer() throws Exception {
        String stats = String.valueOf(server.call("INFO", "commandstats"));
        for (String line : stats.split("\r\n")) {
            if (line.startsWith("cmdstat_winlimit.fixed:calls=")) {
                return Long.parseLong(line.substring("cmdstat_winlimit.fixed:calls=".length()).split(",")[0]);
            }
        }
        return 0;
    }

    @Test
    void openAfterThreeFailuresNothingIsSentUntilOneProbeCloses() throws Exception {
        Limiter limiter = limiter(LimiterConfig.defaults());
        assertTrue(limiter.fixed("k", W, 100).allowed());
        server.pause();
        for (int i = 0; i < 3; i++) {
            assertThrows(RedisTimeoutException.class, () -> limiter.fixed("k", W, 100));
        }
        assertEquals(CircuitBreaker.State.OPEN, limiter.async().breakerState());
        for (int i = 0; i < 5; i++) {
            BreakerOpenException e = assertThrows(BreakerOpenException.class, () -> limiter.fixed("k", W, 100));
            assertEquals(300, e.retryInMs(), e.getMessage());
        }
        server.resume();
        now[0] += 300;
        Decision back = untilRedisAnswers(limiter);
        assertEquals(Backend.MODULE, back.backend());
        assertEquals(CircuitBreaker.State.CLOSED, limiter.async().breakerState());
        // 1 before, the 3 that timed out (run once the server resumed), and the one probe.
        assertEquals(5, fixedCallsAtTheServer());
        assertEquals(95, back.remaining());
    }

    @Test
    void whileOpenTheFallbackDecidesTheSameCommand() throws Exception {
        MemoryLimiter fallback = new MemoryLimiter();
        Limiter limiter = limiter(LimiterConfig.defaults().fallback(fallback));
        server.pause();
        // Each failure is decided by the fallback too: the very command line, counted there.
        List<Long> remaining = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Decision d = limiter.fixed("k", W, 3);
            assertEquals(Backend.MEMORY, d.backend());
            remaining.add(d.remaining());
        }
        assertEquals(List.of(2L, 1L, 0L, 0L), remaining);
        assertFalse(limiter.fixed("k", W, 3).allowed());
        assertEquals(CircuitBreaker.State.OPEN, limiter.async().breakerState());
        server.resume();
        now[0] += 300;
        assertEquals(Backend.MODULE, untilRedisAnswers(limiter).backend());
    }

    @Test
    void aDisabledBreakerSendsEveryCall() throws Exception {
        Limiter limiter = WinlimitLettuce.limiter(client.connect(StringCodec.UTF8),
                LimiterConfig.defaults().timeout(Duration.ofMillis(200)).breaker(BreakerOptions.disabled()));
        server.pause();
        for (int i = 0; i < 5; i++) {
            assertThrows(RedisTimeoutException.class, () -> limiter.fixed("k", W, 100));
        }
        assertEquals(CircuitBreaker.State.CLOSED, limiter.async().breakerState());
    }

    /** Calls until Redis answers, the breaker's clock a whole open period on each time. */
    private Decision untilRedisAnswers(Limiter limiter) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            Decision d = null;
            try {
                d = limiter.fixed("k", W, 100);
            } catch (BreakerOpenException | RedisTimeoutException notYet) {
                if (System.nanoTime() > deadline) {
                    throw notYet;
                }
            }
            if (d != null && d.backend() != Backend.MEMORY) {
                return d;
            }
            now[0] += 30_000;
            Thread.sleep(20);
        }
    }
}
